//! Closest registered names to a name the model got wrong.
//!
//! The model controls the wanted name, and an edit distance costs the product of the two
//! lengths: a name longer than the name rule allows gets no search at all, and registered
//! names (which follow the rule) are at most as long, so one suggestion costs at most
//! `MAX_NAME_LEN` characters compared against each registered name.

use crate::name::MAX_NAME_LEN;

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
            let mut score = strsim::normalized_damerau_levenshtein(&wanted_lower, &lower);
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

#[cfg(test)]
mod tests {
    use super::closest;

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
