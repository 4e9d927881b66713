//! Guesses for a query that shares no word with any tool: character trigrams, which still
//! overlap under a typo, an unknown inflection or a word glued to another.

use rustc_hash::FxHashSet;

use crate::describe::search::SearchRequest;

/// The trigrams of a text's letters and digits, lowercased, across word boundaries.
pub(crate) fn trigrams(text: &str) -> FxHashSet<[char; 3]> {
    let letters: Vec<char> = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    letters.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
}

/// The unskipped documents sharing the most trigrams with `query` (relative to their own
/// count), best first; then, to fill `limit`, the others in the order given.
pub(crate) fn guesses(
    query: &str,
    documents: &[FxHashSet<[char; 3]>],
    request: &SearchRequest<'_>,
) -> Vec<usize> {
    let query = trigrams(query);
    let mut scored: Vec<(f64, usize)> = documents
        .iter()
        .enumerate()
        .filter(|(i, _)| !request.is_skipped(*i))
        .map(|(i, document)| {
            let shared = query.intersection(document).count() as f64;
            (shared / (document.len().max(1) as f64).sqrt(), i)
        })
        .collect();
    // Stable: equal scores (no overlap at all) keep the tools' order.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .take(request.limit)
        .map(|(_, i)| i)
        .collect()
}
