//! Case and accent folding, the same for every word the index and stop-word lists compare.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Unicode lowercase, accents dropped, `ß` as `ss` (as full case folding has it).
pub(crate) fn fold(word: &str) -> String {
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
