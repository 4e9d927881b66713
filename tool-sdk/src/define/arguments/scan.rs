//! A second look at arguments that decoded, for what a decoded value can no longer tell: a key
//! named twice in one object (a map, a `serde_json::Value` or serde keeps the last of the two,
//! where the person deciding, a log, or another parser may have read the first), and a number
//! that did not decode exactly (an integer beyond 64 bits read as the nearest float, or more
//! digits than a float holds).
//!
//! It reads the text the decoder accepted, so it is well-formed JSON; it builds no value, and
//! goes no deeper than the decoder's limit (a member the decoder ignores may nest deeper). Keys are compared as written unless escaped (then
//! unescaped), each object's keys sorted once when it closes; nothing is allocated for an
//! object without members or a key without escapes, beside one list of keys for the whole
//! text.

use std::borrow::Cow;

use super::{escape_pointer_token, MAX_ARGUMENTS_DEPTH};

/// What the look found first (in order of the text, a key before what follows it).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Finding {
    /// The key `key` named twice in the object at `pointer`'s parent; `pointer` is the member's.
    Duplicate { pointer: String, key: String },
    /// The number `literal` at `pointer` would reach the tool as another number.
    Inexact { pointer: String, literal: String },
    /// Nesting deeper than [`MAX_ARGUMENTS_DEPTH`]: the decoder skips a member it ignores
    /// without a limit, the look does not.
    TooDeep,
}

/// What to look for.
#[derive(Clone, Copy)]
pub(super) struct Look {
    /// Keys named twice in one object.
    pub(super) keys: bool,
    /// Numbers a `serde_json::Value` does not hold exactly.
    pub(super) numbers: bool,
}

/// The first finding of `look` in `text` (well-formed JSON), if any.
pub(super) fn scan(text: &str, look: Look) -> Option<Finding> {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        at: 0,
        look,
        keys: Vec::new(),
        path: Vec::new(),
    };
    scanner.value().err()
}

/// One step of the way from the root to where the scanner is.
enum Step<'a> {
    Key(Cow<'a, str>),
    Index(usize),
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    look: Look,
    /// The keys of the objects open, innermost last.
    keys: Vec<Cow<'a, str>>,
    path: Vec<Step<'a>>,
}

impl<'a> Scanner<'a> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after white space, consumed.
    fn next(&mut self) -> Option<u8> {
        self.skip_space();
        let byte = self.bytes.get(self.at).copied();
        self.at += 1;
        byte
    }

    fn pointer(&self) -> String {
        let mut pointer = String::new();
        for step in &self.path {
            pointer.push('/');
            match step {
                Step::Key(key) => pointer.push_str(&escape_pointer_token(key)),
                Step::Index(index) => pointer.push_str(&index.to_string()),
            }
        }
        pointer
    }

    fn value(&mut self) -> Result<(), Finding> {
        self.skip_space();
        match self.bytes.get(self.at) {
            Some(b'{' | b'[') if self.path.len() >= MAX_ARGUMENTS_DEPTH => Err(Finding::TooDeep),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => {
                self.string();
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            // `true`, `false`, `null`: letters only.
            _ => {
                while self.bytes.get(self.at).is_some_and(u8::is_ascii_alphabetic) {
                    self.at += 1;
                }
                Ok(())
            }
        }
    }

    fn object(&mut self) -> Result<(), Finding> {
        self.at += 1;
        let first = self.keys.len();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.skip_space();
            let key = self.string();
            if self.look.keys {
                self.keys.push(key.clone());
            }
            self.next(); // `:`
            self.path.push(Step::Key(key));
            self.value()?;
            self.path.pop();
            if self.next() != Some(b',') {
                break; // `}`
            }
        }
        if self.look.keys {
            let keys = &mut self.keys[first..];
            keys.sort_unstable();
            if let Some(pair) = keys.windows(2).find(|pair| pair[0] == pair[1]) {
                let key = pair[0].clone().into_owned();
                self.path.push(Step::Key(Cow::Owned(key.clone())));
                return Err(Finding::Duplicate {
                    pointer: self.pointer(),
                    key,
                });
            }
            self.keys.truncate(first);
        }
        Ok(())
    }

    fn array(&mut self) -> Result<(), Finding> {
        self.at += 1;
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(());
        }
        let mut index = 0;
        loop {
            self.path.push(Step::Index(index));
            self.value()?;
            self.path.pop();
            if self.next() != Some(b',') {
                return Ok(()); // `]`
            }
            index += 1;
        }
    }

    /// The string starting here, unescaped only when it has escapes.
    fn string(&mut self) -> Cow<'a, str> {
        let start = self.at;
        self.at += 1;
        let mut escaped = false;
        while let Some(&byte) = self.bytes.get(self.at) {
            match byte {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.at += 2;
                }
                _ => self.at += 1,
            }
        }
        self.at += 1;
        let text: &'a str = self.text;
        let quoted = text.get(start..self.at).unwrap_or("\"\"");
        if escaped {
            Cow::Owned(serde_json::from_str(quoted).unwrap_or_default())
        } else {
            Cow::Borrowed(quoted.get(1..quoted.len() - 1).unwrap_or(""))
        }
    }

    fn number(&mut self) -> Result<(), Finding> {
        let start = self.at;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.bytes.get(self.at) {
            self.at += 1;
        }
        if !self.look.numbers {
            return Ok(());
        }
        let literal = self.text.get(start..self.at).unwrap_or("");
        if exact(literal) {
            return Ok(());
        }
        Err(Finding::Inexact {
            pointer: self.pointer(),
            literal: literal.to_owned(),
        })
    }
}

/// Whether the number `literal` (JSON) reaches a tool as itself: an integer that fits 64 bits
/// (a `serde_json::Value` keeps it as an integer), or a number with a fraction or an exponent
/// whose decoded float, written back, is the same decimal value (`0.1` is; `1e400` and
/// `0.10000000000000000001` are not).
pub(super) fn exact(literal: &str) -> bool {
    if !literal.contains(['.', 'e', 'E']) {
        return literal.parse::<u64>().is_ok() || literal.parse::<i64>().is_ok();
    }
    // The float the decoder reads, by the decoder's own parsing.
    let Ok(float) = serde_json::from_str::<f64>(literal) else {
        return false;
    };
    let Ok(written) = serde_json::to_string(&float) else {
        return false;
    };
    matches!((decimal(literal), decimal(&written)), (Some(a), Some(b)) if a == b)
}

/// A decimal number's value as its sign, its significant digits (no leading or trailing zero)
/// and the power of ten of the last one; zero as no digits (and its sign). `None` for an
/// exponent beyond `i64`.
fn decimal(literal: &str) -> Option<(bool, String, i64)> {
    let (negative, unsigned) = match literal.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, literal),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{integer}{fraction}");
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        return Some((negative, String::new(), 0));
    }
    let dropped = i64::try_from(significant.len() - trimmed.len()).ok()?;
    let fraction_digits = i64::try_from(fraction.len()).ok()?;
    let power = exponent
        .checked_sub(fraction_digits)?
        .checked_add(dropped)?;
    Some((negative, trimmed.to_owned(), power))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: Look = Look {
        keys: true,
        numbers: false,
    };
    const NUMBERS: Look = Look {
        keys: false,
        numbers: true,
    };

    fn duplicate(pointer: &str, key: &str) -> Option<Finding> {
        Some(Finding::Duplicate {
            pointer: pointer.to_owned(),
            key: key.to_owned(),
        })
    }

    #[test]
    fn a_key_named_twice_is_found_at_any_depth_with_its_pointer() {
        assert_eq!(scan(r#"{"a": 1, "a": 2}"#, KEYS), duplicate("/a", "a"));
        assert_eq!(
            scan(r#"{"meta": {"owner": "ana", "owner": "root"}}"#, KEYS),
            duplicate("/meta/owner", "owner")
        );
        assert_eq!(
            scan(r#"{"items": [{"k": 1}, {"x": [], "k": 1, "k": 2}]}"#, KEYS),
            duplicate("/items/1/k", "k")
        );
        // The same key however escaped; a key with `/` and `~` in the pointer escaped.
        assert_eq!(
            scan(r#"{"m": {"a/~b": 1, "a\/~\u0062": 2}}"#, KEYS),
            duplicate("/m/a~1~0b", "a/~b")
        );
    }

    #[test]
    fn keys_of_different_objects_and_strings_that_look_like_json_are_not_duplicates() {
        for text in [
            r#"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}"#,
            r#"{"s": "{\"a\": 1, \"a\": 2}", "t": "}]", "u": {}}"#,
            r#" { "x" : [ 1 , -2.5e3 , true , null , { } , [ ] ] } "#,
        ] {
            assert_eq!(scan(text, KEYS), None, "{text}");
            assert_eq!(scan(text, NUMBERS), None, "{text}");
        }
    }

    #[test]
    fn nesting_deeper_than_the_decoder_goes_is_not_followed() {
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(scan(&deep, KEYS), Some(Finding::TooDeep));
        let within = format!("{{\"a\": {}{}}}", "[".repeat(127), "]".repeat(127));
        assert_eq!(scan(&within, KEYS), None);
    }

    #[test]
    fn a_number_that_would_change_is_found_with_its_pointer() {
        let inexact = |pointer: &str, literal: &str| {
            Some(Finding::Inexact {
                pointer: pointer.to_owned(),
                literal: literal.to_owned(),
            })
        };
        assert_eq!(
            scan(r#"{"n": 18446744073709551617}"#, NUMBERS),
            inexact("/n", "18446744073709551617")
        );
        assert_eq!(
            scan(r#"{"l": [1, -9223372036854775809]}"#, NUMBERS),
            inexact("/l/1", "-9223372036854775809")
        );
        assert_eq!(
            scan(r#"{"f": 0.10000000000000000001}"#, NUMBERS),
            inexact("/f", "0.10000000000000000001")
        );
        assert_eq!(scan(r#"{"f": 1e-400}"#, NUMBERS), inexact("/f", "1e-400"));
    }

    #[test]
    fn numbers_a_value_holds_are_exact() {
        for literal in [
            "0",
            "-0",
            "18446744073709551615",
            "-9223372036854775808",
            "0.1",
            "-2.5e3",
            "1E2",
            "100.000",
            "1.8446744073709552e19",
            "5e-324",
            "1.7976931348623157e308",
            "0.0",
            "-0.0",
        ] {
            assert!(exact(literal), "{literal}");
        }
        for literal in ["18446744073709551616", "0.1000000000000000000001", "2e308"] {
            assert!(!exact(literal), "{literal}");
        }
    }
}
