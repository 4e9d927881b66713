//! Words of a text for matching, the same for queries and tools, in any script.
//!
//! Text is normalised (NFKC, so full-width forms and ligatures match their plain forms), then
//! cut into words by Unicode's word boundaries (UAX #29). Identifiers are split further at
//! camelCase humps and at `_`, `.` and `-`. Scripts written without spaces between words (Han,
//! kana, Hangul, Thai, Lao, Khmer, Myanmar) become overlapping character pairs, which match a
//! word of two characters or more wherever it stands. Latin and other cased words are
//! lowercased, their accents dropped (`café` matches `cafe`), stop words removed, and stemmed;
//! a word that stemming changed is also kept as written, marked with [`EXACT`], so an exact
//! match counts beside the looser match of its stem.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// Starts a word kept as written beside its stem. Words are letters and digits only, so no stem
/// starts with it.
pub(crate) const EXACT: char = '=';

/// Whether `term` is a word as written (see [`EXACT`]) rather than a stem.
pub(crate) fn is_exact(term: &str) -> bool {
    term.starts_with(EXACT)
}

/// The words of `text`, in order, as the index keeps them: each stem, preceded by the word as
/// written when stemming changed it.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let text: String = text.nfkc().collect();
    let mut words = Vec::new();
    let mut run_start = 0;
    let mut run_spaceless = false;
    for (at, c) in text.char_indices() {
        let spaceless = is_spaceless(c);
        if spaceless != run_spaceless {
            push_run(&text[run_start..at], run_spaceless, &mut words);
            run_start = at;
            run_spaceless = spaceless;
        }
    }
    push_run(&text[run_start..], run_spaceless, &mut words);
    words
}

fn push_run(run: &str, spaceless: bool, words: &mut Vec<String>) {
    if spaceless {
        push_pairs(run, words);
    } else {
        for word in run.unicode_words() {
            for part in identifier_parts(word) {
                let folded = fold(part);
                if STOP_WORDS.contains(&folded.as_str()) {
                    continue;
                }
                let stem = stem(&folded);
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

/// Unicode lowercase, accents dropped, `ß` as `ss` (as full case folding has it).
fn fold(word: &str) -> String {
    let lower = word.to_lowercase();
    if lower.is_ascii() {
        return lower;
    }
    let mut folded = String::with_capacity(lower.len());
    for c in lower.nfd().filter(|c| !is_combining_mark(*c)) {
        match c {
            'ß' => folded.push_str("ss"),
            _ => folded.push(c),
        }
    }
    folded
}

/// Strips common endings, then keeps at most six characters: crude, but it joins
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

const STOP_WORDS: &[&str] = &[
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

    #[test]
    fn a_word_stemming_changed_is_kept_as_written_too() {
        assert_eq!(tokens("Miles"), ["=miles", "mile"]);
        // Unchanged by stemming: the stem alone.
        assert_eq!(tokens("mile"), ["mile"]);
        // Pairs of a spaceless script are not stemmed.
        assert_eq!(tokens("天气"), ["天气"]);
    }
}
