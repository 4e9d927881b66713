//! Words too common to tell tools apart, per language, folded (lowercase, no accents, `ß` as
//! `ss`) as the tokenizer folds words. They are dropped from queries and tools, and they are
//! how [`detect`](crate::describe::search::detect::detect) tells a text's language, so each
//! list holds its language's most frequent function words. Scripts that tell their language
//! themselves (Arabic, Greek, Russian's Cyrillic, Tamil) need no list to be detected, and get a
//! short one to drop.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use crate::describe::search::language::Language;

/// The languages whose list holds `folded`, one bit each ([`Language::bit`]); 0 for a word no
/// list holds. One lookup per word, as every word of every tool and query is looked up.
pub(crate) fn languages_of(folded: &str) -> u32 {
    static TABLE: OnceLock<FxHashMap<&'static str, u32>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = FxHashMap::default();
        for language in Language::ALL {
            for word in of(language) {
                *table.entry(*word).or_default() |= language.bit();
            }
        }
        table
    });
    table.get(folded).copied().unwrap_or(0)
}

/// The stop words of `language`.
fn of(language: Language) -> &'static [&'static str] {
    match language {
        Language::English => ENGLISH,
        Language::German => &[
            "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer",
            "eines", "und", "oder", "ist", "sind", "nicht", "zu", "zum", "zur", "mit", "von",
            "vom", "fur", "auf", "im", "ins", "bei", "nach", "aus", "uber", "wie", "als", "auch",
            "dass", "ich", "mir", "mich", "wir", "sie", "es", "sich", "wird", "werden", "bitte",
            "welche", "welcher", "wo", "wann", "mein", "meine", "dieser", "diese",
        ],
        Language::French => &[
            "le", "la", "les", "l", "un", "une", "des", "du", "de", "d", "et", "ou", "est", "sont",
            "pour", "dans", "sur", "avec", "par", "au", "aux", "ce", "cette", "ces", "qui", "que",
            "qu", "quel", "quelle", "ne", "pas", "plus", "son", "sa", "ses", "leur", "je", "j",
            "il", "elle", "nous", "vous", "mon", "ma", "mes", "moi",
        ],
        Language::Spanish => &[
            "el", "la", "los", "las", "un", "una", "unos", "unas", "de", "del", "y", "o", "es",
            "son", "en", "para", "por", "con", "que", "se", "su", "sus", "al", "lo", "como", "mas",
            "pero", "mi", "yo", "usted", "este", "esta", "estos", "donde", "cuando", "cual",
            "quiero", "favor",
        ],
        Language::Italian => &[
            "il", "lo", "la", "i", "gli", "le", "un", "una", "uno", "di", "del", "della", "dei",
            "delle", "e", "per", "con", "su", "da", "dal", "che", "non", "si", "come", "piu",
            "mio", "mia", "io", "sono", "al", "alla", "nel", "nella", "questo",
        ],
        Language::Portuguese => &[
            "o", "a", "os", "as", "um", "uma", "de", "do", "da", "dos", "das", "e", "em", "para",
            "por", "com", "que", "se", "nao", "no", "na", "nos", "nas", "ao", "mais", "como", "eu",
            "voce", "meu", "minha", "seu", "sua",
        ],
        Language::Dutch => &[
            "de", "het", "een", "en", "van", "op", "voor", "met", "niet", "dat", "die", "te",
            "zijn", "er", "aan", "bij", "ook", "om", "uit", "naar", "als", "wordt", "worden", "ik",
            "je", "mijn", "u",
        ],
        Language::Swedish => &[
            "och", "att", "det", "som", "en", "ett", "pa", "ar", "av", "for", "med", "till", "den",
            "har", "inte", "om", "jag", "du", "vi", "min", "mitt",
        ],
        Language::Norwegian => &[
            "og", "at", "det", "som", "en", "et", "pa", "er", "av", "for", "med", "til", "den",
            "har", "ikke", "om", "jeg", "du", "vi", "min", "mitt",
        ],
        Language::Danish => &[
            "og", "at", "det", "som", "en", "et", "pa", "er", "af", "for", "med", "til", "den",
            "har", "ikke", "om", "jeg", "du", "vi", "min", "mit",
        ],
        Language::Finnish => &[
            "ja", "on", "ei", "se", "etta", "kuin", "mita", "tai", "joka", "mika", "minun", "sina",
            "han", "me", "te", "he", "olla", "ovat",
        ],
        Language::Hungarian => &[
            "a", "az", "egy", "es", "hogy", "nem", "is", "van", "meg", "de", "mint", "ez", "azt",
            "vagy", "kell", "en", "te", "mi", "ti",
        ],
        Language::Romanian => &[
            "si", "in", "la", "de", "cu", "pe", "din", "un", "o", "care", "este", "sunt", "nu",
            "pentru", "mai", "ce", "sau", "al", "ale", "lui",
        ],
        Language::Turkish => &[
            "ve", "bir", "bu", "da", "de", "icin", "ile", "mi", "ne", "o", "ama", "gibi", "daha",
            "cok", "olan", "en", "ben", "sen", "biz",
        ],
        Language::Russian => &[
            "и", "в", "во", "не", "на", "что", "с", "со", "по", "как", "а", "к", "из", "у", "о",
            "за", "от", "для", "это", "все", "мне", "мой", "я", "ты", "он", "она", "мы", "вы",
            "ли", "бы", "же", "или",
        ],
        Language::Greek => &[
            "και",
            "το",
            "η",
            "ο",
            "να",
            "του",
            "της",
            "των",
            "την",
            "τον",
            "σε",
            "με",
            "για",
            "απο",
            "ειναι",
        ],
        Language::Arabic => &["في", "من", "على", "الى", "عن", "و", "أو", "هذا", "هذه"],
        Language::Tamil => &["மற்றும்", "ஒரு", "இந்த", "அந்த"],
    }
}

const ENGLISH: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "for",
    "on",
    "and",
    "or",
    "is",
    "are",
    "be",
    "with",
    "by",
    "at",
    "as",
    "it",
    "its",
    "this",
    "that",
    "from",
    "what",
    "which",
    "how",
    "me",
    "my",
    "i",
    "you",
    "your",
    "we",
    "can",
    "could",
    "would",
    "will",
    "please",
    "given",
    "if",
    "not",
    "do",
    "does",
    "get",
    "find",
    "e",
    "g",
    "eg",
    "default",
    "specified",
    "optional",
    "use",
    "using",
];
