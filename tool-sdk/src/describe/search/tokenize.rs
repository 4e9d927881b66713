//! Words of a text for matching, the same for queries and tools, in any script.
//!
//! Text is normalised (NFKC, so full-width forms and ligatures match their plain forms), then
//! cut into words by Unicode's word boundaries (UAX #29). Identifiers are split further at
//! camelCase humps and at `_`, `.` and `-`. Scripts written without spaces between words (Han,
//! kana, Hangul, Thai, Lao, Khmer, Myanmar) become overlapping character pairs, which match a
//! word of two characters or more wherever it stands. Latin and other cased words are
//! lowercased, their accents dropped (`café` matches `cafe`), stop words removed (English ones,
//! as identifiers are mostly English, and the text's language's), and stemmed in the text's
//! language, or in their script's where it has one stemmer (Cyrillic: Russian); a word that
//! stemming changed is also kept as written, marked with [`EXACT`], so an exact match counts
//! beside the looser match of its stem.

use rust_stemmers::Stemmer;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use crate::describe::search::fold::fold;
use crate::describe::search::language::{script_language, Language};
use crate::describe::search::stop_words;

/// Starts a word kept as written beside its stem. Words are letters and digits only, so no stem
/// starts with it.
pub(crate) const EXACT: char = '=';

/// Whether `term` is a word as written (see [`EXACT`]) rather than a stem.
pub(crate) fn is_exact(term: &str) -> bool {
    term.starts_with(EXACT)
}

/// The words of `text`, in order, as the index keeps them: each stem, preceded by the word as
/// written when stemming changed it. Words are stemmed in `language`.
pub(crate) fn tokens(text: &str, language: Language) -> Vec<String> {
    let text: String = text.nfkc().collect();
    let mut words = Vec::new();
    let mut run_start = 0;
    let mut run_spaceless = false;
    for (at, c) in text.char_indices() {
        let spaceless = is_spaceless(c);
        if spaceless != run_spaceless {
            push_run(&text[run_start..at], run_spaceless, language, &mut words);
            run_start = at;
            run_spaceless = spaceless;
        }
    }
    push_run(&text[run_start..], run_spaceless, language, &mut words);
    words
}

fn push_run(run: &str, spaceless: bool, language: Language, words: &mut Vec<String>) {
    if spaceless {
        push_pairs(run, words);
    } else {
        for word in run.unicode_words() {
            for part in identifier_parts(word) {
                let folded = fold(part);
                if is_stop_word(&folded, language) {
                    continue;
                }
                let stem = stem_in(part, &folded, script_language(part).unwrap_or(language));
                if stem != folded {
                    words.push(format!("{EXACT}{folded}"));
                }
                words.push(stem);
            }
        }
    }
}

/// A run of a script without spaces: every pair of neighbouring characters, or the character
/// alone in a run of one.
fn push_pairs(run: &str, words: &mut Vec<String>) {
    let characters: Vec<char> = run.chars().collect();
    if let [alone] = characters.as_slice() {
        words.push(alone.to_string());
    }
    words.extend(characters.windows(2).map(|pair| pair.iter().collect()));
}

/// Whether `c` belongs to a script written without spaces between words.
fn is_spaceless(c: char) -> bool {
    matches!(u32::from(c),
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1100..=0x11FF // Hangul jamo
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility jamo
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // Han, extension A
        | 0x4E00..=0x9FFF // Han
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // Han compatibility
        | 0x20000..=0x3134F // Han, extensions B to G
    )
}

/// The pieces of an identifier-like word: `getWeather`, `get_weather` and `math.sqrt` split
/// into their words; a digit after a lowercase letter stays with it (`sha256`).
fn identifier_parts(word: &str) -> impl Iterator<Item = &str> {
    let mut parts = Vec::new();
    let mut start = None;
    let mut previous_lower = false;
    for (at, c) in word.char_indices() {
        if !c.is_alphanumeric() {
            if let Some(from) = start.take() {
                parts.push(&word[from..at]);
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            if let Some(from) = start {
                parts.push(&word[from..at]);
            }
            start = Some(at);
        }
        start.get_or_insert(at);
        previous_lower = c.is_lowercase() || c.is_numeric();
    }
    if let Some(from) = start {
        parts.push(&word[from..]);
    }
    parts.into_iter()
}

fn is_stop_word(folded: &str, language: Language) -> bool {
    stop_words::languages_of(folded) & (Language::English.bit() | language.bit()) != 0
}

/// The stem of `word` (`folded` is it folded) in `language`, folded. Snowball stemmers read the
/// word with its accents, which their rules name (German `ü`, French `é`), so they get the
/// lowercased word and their stem is folded after.
fn stem_in(word: &str, folded: &str, language: Language) -> String {
    match language.snowball() {
        None => stem(folded),
        Some(algorithm) => fold(&Stemmer::create(algorithm).stem(&word.to_lowercase())),
    }
}

/// English: strips common endings, then keeps at most six characters: crude, but it joins
/// `probability`/`probabilities` and `genetic`/`genetically`, which is what recall needs.
fn stem(word: &str) -> String {
    let mut stem = word;
    for suffix in [
        "ically", "ally", "ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s",
    ] {
        if let Some(stripped) = word.strip_suffix(suffix) {
            // `-es` is an ending after a sibilant (`boxes`, `matches`); elsewhere the `e`
            // belongs to the word (`miles`, `rates`), and only `-s` is stripped.
            if suffix == "es" && !ends_in_sibilant(stripped) {
                continue;
            }
            if stripped.len() >= 3 {
                stem = stripped;
                break;
            }
        }
    }
    stem.chars().take(STEM_LENGTH).collect()
}

fn ends_in_sibilant(stem: &str) -> bool {
    ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|ending| stem.ends_with(ending))
}

/// Characters a stem keeps.
const STEM_LENGTH: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_e_before_s_stays_unless_a_sibilant_precedes_it() {
        assert_eq!(stem("miles"), stem("mile"));
        assert_eq!(stem("rates"), "rate");
        assert_eq!(stem("boxes"), "box");
        assert_eq!(stem("matches"), "match");
    }

    /// The stems of `text` in `language`, without the words as written.
    fn stems(text: &str, language: Language) -> Vec<String> {
        tokens(text, language)
            .into_iter()
            .filter(|t| !is_exact(t))
            .collect()
    }

    #[test]
    fn identifiers_split_at_humps_separators_and_not_inside_codes() {
        let parts = |word| identifier_parts(word).collect::<Vec<_>>();
        assert_eq!(parts("getWeatherForecast"), ["get", "Weather", "Forecast"]);
        assert_eq!(parts("get_weather-now.v2"), ["get", "weather", "now", "v2"]);
        assert_eq!(parts("sha256Digest"), ["sha256", "Digest"]);
        assert_eq!(parts("HTTPServer"), ["HTTPServer"]);
        // Through the tokenizer: `get` is a stop word, the rest stemmed.
        assert_eq!(
            stems("getWeatherForecasts", Language::English),
            ["weathe", "foreca"]
        );
    }

    #[test]
    fn inflected_forms_share_a_stem_in_their_language() {
        for (language, forms) in [
            (Language::German, ["Flüge", "Flug", "Fluges"]),
            (Language::French, ["réservations", "réserver", "réservé"]),
            (
                Language::Spanish,
                ["habitaciones", "habitación", "habitación"],
            ),
            (Language::Russian, ["гостиницы", "гостиница", "гостинице"]),
        ] {
            let stems: Vec<Vec<String>> = forms.iter().map(|f| stems(f, language)).collect();
            assert!(
                stems.iter().all(|s| *s == stems[0]),
                "{language:?}: {stems:?}"
            );
        }
        // Stems are folded as words are: `hôtel` and `hotel` match.
        assert_eq!(
            stems("hôtels", Language::French),
            stems("hotel", Language::French)
        );
    }

    #[test]
    fn a_word_of_a_telling_script_is_stemmed_in_its_language() {
        // Cyrillic in an English text: still Russian.
        assert_eq!(
            stems("гостиницы", Language::English),
            stems("гостиница", Language::Russian)
        );
    }

    #[test]
    fn stop_words_of_the_language_and_english_ones_are_dropped() {
        assert_eq!(stems("der Flug und die Hotels", Language::German).len(), 2);
        // Identifiers are mostly English: `get` goes in a German text too.
        assert_eq!(
            stems("get_wetter", Language::German),
            stems("wetter", Language::German)
        );
    }

    #[test]
    fn a_word_stemming_changed_is_kept_as_written_too() {
        assert_eq!(tokens("Miles", Language::English), ["=miles", "mile"]);
        // Unchanged by stemming: the stem alone.
        assert_eq!(tokens("mile", Language::English), ["mile"]);
        // Pairs of a spaceless script are not stemmed.
        assert_eq!(tokens("天气", Language::English), ["天气"]);
    }
}
