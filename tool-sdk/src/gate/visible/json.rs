//! A tool call's JSON arguments as the tokens a person reads, taken from the text the model
//! wrote rather than from a parsed value: numbers keep their digits (a value would round one
//! past `u64`), and a key written twice shows twice. Surfaces lay the tokens out their own way
//! (indented on the page, on one line in a host's dialog) and show each string through
//! [`Visible`](super::Visible).

use std::borrow::Cow;

use crate::define::MAX_ARGUMENTS_DEPTH;

/// One token of a JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// `{` or `[`.
    Open(char),
    /// `}` or `]`.
    Close(char),
    Comma,
    Colon,
    /// A string, key or value, its escapes decoded; kept as written when it cannot be decoded
    /// (a lone surrogate escape).
    String(Cow<'a, str>),
    /// A number, `true`, `false` or `null`, exactly as written.
    Scalar(&'a str),
}

impl Token<'_> {
    /// A string token as JSON writes it: quoted, with `"`, `\` and control characters escaped.
    pub(crate) fn quoted(text: &str) -> String {
        serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
    }
}

/// The tokens of `text`, or `None` when it is not one JSON value or nests deeper than
/// arguments may ([`MAX_ARGUMENTS_DEPTH`]).
///
/// The depth is bounded here because `serde_json` skips an ignored value without a limit, and
/// a layout indents each line by its depth: text nested 100,000 deep (200 KB) would be laid out
/// in gigabytes. Past the limit a surface shows the text as written.
pub(crate) fn tokens(text: &str) -> Option<Vec<Token<'_>>> {
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    let mut tokens = Vec::new();
    let mut depth = 0usize;
    let mut rest = text;
    while let Some(first) = rest.chars().next() {
        let taken = match first {
            '{' | '[' => {
                depth += 1;
                if depth > MAX_ARGUMENTS_DEPTH {
                    return None;
                }
                tokens.push(Token::Open(first));
                1
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                tokens.push(Token::Close(first));
                1
            }
            ',' => {
                tokens.push(Token::Comma);
                1
            }
            ':' => {
                tokens.push(Token::Colon);
                1
            }
            '"' => {
                let end = string_end(rest)?;
                let written = &rest[..end];
                let value = serde_json::from_str::<String>(written)
                    .map(Cow::Owned)
                    .unwrap_or(Cow::Borrowed(&written[1..end - 1]));
                tokens.push(Token::String(value));
                end
            }
            c if c.is_ascii_whitespace() => 1,
            _ => {
                let end = rest
                    .find(|c: char| matches!(c, ',' | ']' | '}' | ':') || c.is_ascii_whitespace())
                    .unwrap_or(rest.len());
                tokens.push(Token::Scalar(&rest[..end]));
                end
            }
        };
        rest = &rest[taken..];
    }
    Some(tokens)
}

/// Where the string that opens `text` ends: the byte after its closing quote.
fn string_end(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(at + 1),
            _ => {}
        }
    }
    None
}

/// Lays `tokens` out indented by two spaces, one member per line, into `out`, as
/// `serde_json::to_string_pretty` would; `string` and `scalar` write those tokens.
#[cfg(feature = "approvals")]
pub(crate) fn pretty(
    tokens: &[Token<'_>],
    out: &mut String,
    mut string: impl FnMut(&str, &mut String),
    mut scalar: impl FnMut(&str, &mut String),
) {
    let mut depth = 0usize;
    let line = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    for (at, token) in tokens.iter().enumerate() {
        match token {
            Token::Open(c) => {
                out.push(*c);
                if !matches!(tokens.get(at + 1), Some(Token::Close(_))) {
                    depth += 1;
                    line(out, depth);
                }
            }
            Token::Close(c) => {
                if !matches!(
                    at.checked_sub(1).map(|before| &tokens[before]),
                    Some(Token::Open(_))
                ) {
                    depth = depth.saturating_sub(1);
                    line(out, depth);
                }
                out.push(*c);
            }
            Token::Comma => {
                out.push(',');
                line(out, depth);
            }
            Token::Colon => out.push_str(": "),
            Token::String(text) => string(text, out),
            Token::Scalar(text) => scalar(text, out),
        }
    }
}

#[cfg(all(test, feature = "approvals"))]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        let mut out = String::new();
        pretty(
            &tokens(text).expect("JSON"),
            &mut out,
            |text, out| out.push_str(&Token::quoted(text)),
            |text, out| out.push_str(text),
        );
        out
    }

    #[test]
    fn arguments_are_laid_out_as_serde_json_would() {
        for text in [
            r#"{"to": "ana", "cc": [], "meta": {}, "n": [1, 2.5, true, null], "o": {"a": {"b": "c"}}}"#,
            r#"["a\"b\\c\n", "caf\u00e9"]"#,
            "7",
            "{}",
        ] {
            let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(
                plain(text),
                serde_json::to_string_pretty(&value).expect("JSON")
            );
        }
    }

    #[test]
    fn what_a_value_would_lose_is_kept() {
        // The digits past u64, and a key written twice.
        assert_eq!(
            plain(r#"{"amount": 18446744073709551617, "owner": "ana", "owner": "root"}"#),
            "{\n  \"amount\": 18446744073709551617,\n  \"owner\": \"ana\",\n  \"owner\": \"root\"\n}"
        );
    }

    #[test]
    fn text_nested_past_the_arguments_limit_has_no_tokens() {
        // Laid out, each of these lines would be indented by its depth: quadratic in the text.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(tokens(&deep), None);
        let limit = MAX_ARGUMENTS_DEPTH;
        let deepest = format!("{}{}", "[".repeat(limit), "]".repeat(limit));
        assert_eq!(tokens(&deepest).map(|tokens| tokens.len()), Some(2 * limit));
        let past = format!("{}{}", "[".repeat(limit + 1), "]".repeat(limit + 1));
        assert_eq!(tokens(&past), None);
    }

    #[test]
    fn text_that_is_not_json_has_no_tokens() {
        for text in ["", "{", "not json", r#"{"a": 1} {"b": 2}"#, r#"{"a" 1}"#] {
            assert_eq!(tokens(text), None, "{text}");
        }
        // A lone surrogate is JSON, and shows as written.
        assert_eq!(
            tokens(r#"["\ud800"]"#).expect("JSON")[1],
            Token::String(Cow::Borrowed("\\ud800"))
        );
    }
}
