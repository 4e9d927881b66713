//! Closest registered names to a name the model got wrong.
//!
//! The model controls the wanted name, so its cost is bounded: a name longer than the name rule
//! allows gets no search at all, and the distance to each registered name (which follows the
//! rule, so fits in one 64-bit word) is computed bit-parallel, one step per byte of the wanted
//! name: a suggestion costs at most `MAX_NAME_LEN` steps per registered name.

use crate::define::MAX_NAME_LEN;

/// Suggestions offered at most.
const MAX_SUGGESTIONS: usize = 3;

/// Up to three of `known` closest to `wanted`, closest first; only names close enough to be a
/// plausible slip (a normalized similarity of at least 0.5, or one containing the other).
/// None for a name longer than [`MAX_NAME_LEN`]: no tool can have it, and no slip makes one.
pub(crate) fn closest<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
    if wanted.len() > MAX_NAME_LEN {
        return Vec::new();
    }
    let wanted_lower = wanted.to_ascii_lowercase();
    let mut scored: Vec<(f64, &str)> = known
        .filter(|name| name.len() <= MAX_NAME_LEN)
        .filter_map(|name| {
            let lower = name.to_ascii_lowercase();
            let mut score = similarity(lower.as_bytes(), wanted_lower.as_bytes());
            if !wanted_lower.is_empty()
                && (lower.contains(&wanted_lower) || wanted_lower.contains(&lower))
            {
                score = score.max(0.5);
            }
            (score >= 0.5).then_some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, name)| name.to_owned())
        .collect()
}

/// `1 - distance / longer length`, by bytes (names are ASCII by rule; a wanted name that is not
/// is compared byte by byte, which only makes it look less alike).
fn similarity(pattern: &[u8], text: &[u8]) -> f64 {
    let longer = pattern.len().max(text.len());
    if longer == 0 {
        return 1.0;
    }
    1.0 - levenshtein(pattern, text) as f64 / longer as f64
}

/// The Levenshtein distance between `pattern` (at most 64 bytes) and `text`, by Myers' and
/// Hyyrö's bit-vector method: the pattern's column of the distance table lives in two words,
/// updated once per byte of `text`. A longer pattern is compared by its first 64 bytes and the
/// rest counted as insertions, an upper bound (registered names are never that long).
fn levenshtein(pattern: &[u8], text: &[u8]) -> usize {
    let (pattern, beyond) = pattern.split_at(pattern.len().min(64));
    if pattern.is_empty() {
        return text.len() + beyond.len();
    }
    let mut equal = [0u64; 256];
    for (i, &byte) in pattern.iter().enumerate() {
        equal[usize::from(byte)] |= 1 << i;
    }
    let last = 1u64 << (pattern.len() - 1);
    // Vertical deltas of the current column: +1 where `plus`, -1 where `minus`.
    let (mut plus, mut minus) = (!0u64, 0u64);
    let mut distance = pattern.len();
    for &byte in text {
        let eq = equal[usize::from(byte)];
        let x_vertical = eq | minus;
        let x_horizontal = ((eq & plus).wrapping_add(plus) ^ plus) | eq;
        let mut h_plus = minus | !(x_horizontal | plus);
        let mut h_minus = plus & x_horizontal;
        if h_plus & last != 0 {
            distance += 1;
        } else if h_minus & last != 0 {
            distance -= 1;
        }
        h_plus = (h_plus << 1) | 1;
        h_minus <<= 1;
        plus = h_minus | !(x_vertical | h_plus);
        minus = h_plus & x_vertical;
    }
    distance + beyond.len()
}

#[cfg(test)]
mod tests {
    use super::{closest, levenshtein};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_bit_parallel_distance_is_the_textbook_one(
            pattern in "[a-c_]{0,64}",
            text in "[a-c_\\u{e9}]{0,80}",
        ) {
            prop_assert_eq!(
                levenshtein(pattern.as_bytes(), text.as_bytes()),
                strsim::generic_levenshtein(&pattern.as_bytes().to_vec(), &text.as_bytes().to_vec())
            );
        }
    }

    #[test]
    fn ranks_close_names_first_and_drops_unrelated_ones() {
        let known = ["get_weather", "get_time", "book_flight", "weather_alerts"];
        let found = closest("get_wether", known.into_iter());
        assert_eq!(found.first().map(String::as_str), Some("get_weather"));
        assert!(!found.iter().any(|n| n == "book_flight"));
    }

    #[test]
    fn never_more_than_three() {
        let known = ["a1", "a2", "a3", "a4", "a5"];
        assert_eq!(closest("a", known.into_iter()).len(), 3);
    }

    #[test]
    fn a_name_longer_than_the_rule_gets_no_search() {
        let wanted = "get_weather".repeat(6);
        assert!(closest(&wanted, ["get_weather"].into_iter()).is_empty());
        let within = "get_weather".repeat(5);
        assert_eq!(
            closest(&within, ["get_weather"].into_iter()),
            ["get_weather"]
        );
    }
}
