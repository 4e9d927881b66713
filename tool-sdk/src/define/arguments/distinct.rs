//! The quick look for a key named twice, which every typed call with an object inside its
//! arguments pays: one pass over the text with no allocation, no path kept and no sorting.
//!
//! It answers only "every object's keys are distinct, and no nesting reaches the decoder's
//! limit". Anything else (a key named twice, a key written with escapes, more keys open at once
//! than it holds, nesting that deep) sends the text to the full look ([`scan`](super::scan)),
//! which finds what is wrong and where, or finds nothing: so the quick look may be unsure, but
//! never wrong when it says the keys are distinct.

use super::MAX_ARGUMENTS_DEPTH;

/// Keys the quick look holds at once (those of the objects open); past it, it is unsure.
const KEYS: usize = 32;
/// Objects open at once the quick look follows; past it, it is unsure.
const OBJECTS: usize = 16;

/// Whether every object of `text` (well-formed JSON) names each key once, as written, and no
/// object or array opens at the decoder's depth limit. `false` means unsure: ask the full look.
pub(super) fn keys_distinct(text: &str) -> bool {
    let bytes = text.as_bytes();
    if u32::try_from(bytes.len()).is_err() {
        return false;
    }
    // Each key held as its start and its length in `text` (which fit in `u32`, as the text's
    // length does): small, so that setting up the look costs a few stores.
    let mut keys = [(0_u32, 0_u32); KEYS];
    let mut held: usize = 0;
    // For each object open, where its keys start in `keys` (at most `KEYS`: a byte).
    let mut objects = [0_u8; OBJECTS];
    let mut open_objects: usize = 0;
    let mut depth: usize = 0;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        match byte {
            b'"' => {
                let start = at;
                let Some((end, escaped)) = string_end(bytes, start) else {
                    return false;
                };
                at = end + 1;
                while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
                    at += 1;
                }
                if bytes.get(at) != Some(&b':') {
                    continue; // a value
                }
                let Some(&first) = objects.get(open_objects.wrapping_sub(1)) else {
                    return false; // a key outside any object: not JSON
                };
                if escaped || held == KEYS {
                    return false;
                }
                let key = bytes.get(start..end).unwrap_or_default();
                let (start, len) = (start as u32, key.len() as u32);
                let repeated = keys
                    .get(usize::from(first)..held)
                    .unwrap_or_default()
                    .iter()
                    .any(|&(other, other_len)| {
                        other_len == len
                            && bytes.get(other as usize..(other + len) as usize) == Some(key)
                    });
                if repeated {
                    return false;
                }
                keys[held] = (start, len);
                held += 1;
            }
            b'{' | b'[' => {
                if depth >= MAX_ARGUMENTS_DEPTH {
                    return false;
                }
                depth += 1;
                if byte == b'{' {
                    if open_objects == OBJECTS {
                        return false;
                    }
                    objects[open_objects] = held as u8;
                    open_objects += 1;
                }
            }
            b'}' => {
                let Some(open) = open_objects.checked_sub(1) else {
                    return false; // not JSON
                };
                open_objects = open;
                held = usize::from(objects[open]);
                depth = depth.saturating_sub(1);
            }
            b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// The offset of the quote that closes the string whose text starts at `start`, and whether
/// the string has escapes; `None` when it does not close.
#[inline]
fn string_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut at = start;
    let mut escaped = false;
    loop {
        match *bytes.get(at)? {
            b'"' => return Some((at, escaped)),
            b'\\' => {
                escaped = true;
                at += 2;
            }
            _ => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::scan::{scan, Finding, Look};
    use super::*;

    const KEYS_ONLY: Look = Look {
        keys: true,
        numbers: false,
    };

    #[test]
    fn distinct_keys_at_every_depth_are_distinct() {
        for text in [
            "{}",
            r#"{"a": 1, "b": {"a": 1, "b": [1, {"a": 2}, {"a": 3}]}, "c": "\"a\": {"}"#,
            r#"{"trip": {"destination": "Lisbon", "nights": 3, "travellers": [{"name": "Ana", "age": 34}, {"name": "Ben", "age": 36}], "budget": null}}"#,
            " { \"x\" : [ 1 , -2.5e3 , true , null , { } , [ ] ] } ",
        ] {
            assert!(keys_distinct(text), "{text}");
        }
    }

    #[test]
    fn a_repeat_escapes_or_depth_leave_it_unsure() {
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(128), "]".repeat(128));
        for text in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"m": {"k": 1, "x": [], "k": 2}}"#,
            r#"{"items": [{"k": 1}, {"x": {}, "k": 1, "k": 2}]}"#,
            r#"{"a\u0062": 1}"#,
            &deep,
        ] {
            assert!(!keys_distinct(text), "{text}");
        }
        // One level less deep is within the limit, as the full look has it.
        let within = format!("{{\"a\": {}{}}}", "[".repeat(127), "]".repeat(127));
        assert!(keys_distinct(&within));
        assert_eq!(scan(&within, KEYS_ONLY), None);
        assert_eq!(scan(&deep, KEYS_ONLY), Some(Finding::TooDeep));
    }

    #[test]
    fn more_keys_or_objects_open_than_it_holds_leave_it_unsure() {
        let many: Vec<String> = (0..KEYS + 1).map(|i| format!("\"k{i}\": {i}")).collect();
        let many = format!("{{{}}}", many.join(", "));
        assert!(!keys_distinct(&many));
        let nested = format!(
            "{}1{}",
            "{\"a\": ".repeat(OBJECTS + 1),
            "}".repeat(OBJECTS + 1)
        );
        assert!(!keys_distinct(&nested));
        // Keys of closed objects are let go: many small objects are no trouble.
        let small: Vec<&str> = vec![r#"{"a": 1, "b": 2}"#; KEYS * 2];
        assert!(keys_distinct(&format!("{{\"l\": [{}]}}", small.join(", "))));
    }

    /// A JSON text of objects (keys from a small set, so that some repeat), arrays, strings
    /// that look like JSON, numbers and literals, with white space here and there.
    fn json() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec!["a", "b", "c", "ab", "{\\\"a\\\":", "a\\u0062"]);
        let space = prop::sample::select(vec!["", " ", "\n  "]);
        let leaf = prop::sample::select(vec![
            "1",
            "-2.5e3",
            "true",
            "null",
            "\"{\\\"a\\\": 1}\"",
            "\"{ :} [,\"",
        ])
        .prop_map(str::to_owned);
        leaf.prop_recursive(6, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|items| format!("[{}]", items.join(","))),
                prop::collection::vec((key.clone(), space.clone(), inner), 0..5).prop_map(
                    |members| {
                        let members: Vec<String> = members
                            .into_iter()
                            .map(|(key, space, value)| format!("{space}\"{key}\"{space}:{value}"))
                            .collect();
                        format!("{{{}}}", members.join(","))
                    }
                ),
            ]
        })
        .prop_map(|value| format!("{{\"v\": {value}}}"))
    }

    proptest! {
        /// Distinct by the quick look is distinct by the full look; and without escaped keys
        /// they agree.
        #[test]
        fn the_quick_look_is_never_wrong(text in json()) {
            prop_assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "{}", text);
            let full = scan(&text, KEYS_ONLY);
            if keys_distinct(&text) {
                prop_assert_eq!(full, None, "{}", text);
            } else if !text.contains('\\') {
                prop_assert!(full.is_some(), "{}", text);
            }
        }
    }
}
