//! Where in the arguments text a decoding error happened, as a JSON pointer.
//!
//! serde_json reports a data error (a wrong type, a missing or unknown field) with the position
//! it had reached in the text. Reading the text again up to that position, tracking the object
//! keys and array indexes on the way, gives the pointer of the value it was at. This costs
//! nothing per argument type: the alternative, decoding a second time through a path-tracking
//! deserializer, compiles the whole decoder of every tool again.
//!
//! What the position means is serde_json's own convention, which the rule here follows:
//! - a value of the wrong type, a rejected string or number: just after the value (or, for an
//!   object or array where a scalar was expected, just before it) — the pointer is that value's,
//!   an array element's included when serde_json stopped on its first byte;
//! - a missing field: just after the `}` of the object lacking it — the pointer is that
//!   object's (the caller adds the field);
//! - an unknown or duplicate field: just after the key — the pointer is that member's.

/// The byte offset of serde_json's 1-based `line` and 0-based byte `column` in `text`.
pub(super) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start_of_line = if line <= 1 {
        0
    } else {
        text.bytes()
            .enumerate()
            .filter(|&(_, byte)| byte == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(index, _)| index + 1)
    };
    start_of_line.saturating_add(column).min(text.len())
}

/// One open object or array on the way to the position.
enum Frame {
    /// An object, the key of the member being read (none before its first key), and whether
    /// the next string is a key (after `{` or `,`) rather than a value.
    Object { key: Option<String>, key_next: bool },
    /// An array, and the index of the element being read (none before its first element).
    Array { index: Option<usize> },
}

/// Where serde_json stopped.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Location {
    /// The pointer of the value it was at.
    pub(super) pointer: String,
    /// Whether it stopped just after an object key (its last token), before the member's value.
    pub(super) after_key: bool,
}

/// Where serde_json was when it stopped at byte `offset` of `text`.
///
/// `text` is valid JSON up to `offset` (serde_json read it that far); beyond it, only the byte
/// at `offset` is looked at, to tell whether a value starts there. Escapes in keys are decoded,
/// and each key is escaped as a pointer token.
pub(super) fn locate(text: &str, offset: usize) -> Location {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut after_key = false;
    let mut i = 0;
    while i < end {
        let byte = bytes[i];
        if !matches!(byte, b' ' | b'\n' | b'\t' | b'\r' | b':') {
            after_key = false;
        }
        match byte {
            b'{' => {
                begin_value(&mut stack);
                stack.push(Frame::Object {
                    key: None,
                    key_next: true,
                });
                i += 1;
            }
            b'[' => {
                begin_value(&mut stack);
                stack.push(Frame::Array { index: None });
                i += 1;
            }
            b'}' | b']' => {
                // The closed value stays current in its parent until the next member.
                stack.pop();
                i += 1;
            }
            b',' => {
                if let Some(Frame::Object { key_next, .. }) = stack.last_mut() {
                    *key_next = true;
                }
                i += 1;
            }
            b'"' => {
                let close = string_end(bytes, i);
                match stack.last_mut() {
                    Some(Frame::Object { key, key_next }) if *key_next => {
                        *key = Some(decode_key(&text[i..close]));
                        *key_next = false;
                        after_key = true;
                    }
                    _ => begin_value(&mut stack),
                }
                i = close;
            }
            b' ' | b'\n' | b'\t' | b'\r' | b':' => i += 1,
            _ => {
                // A number, `true`, `false` or `null`: up to the next delimiter.
                begin_value(&mut stack);
                i += 1;
                while i < bytes.len() && !is_delimiter(bytes[i]) {
                    i += 1;
                }
            }
        }
    }
    // Stopped just before a value where a scalar was expected: in an array, that value is the
    // element serde_json was at.
    let value_next = bytes
        .get(end)
        .is_some_and(|&byte| matches!(byte, b'{' | b'[' | b'"') || !is_delimiter(byte));
    if value_next && matches!(stack.last(), Some(Frame::Array { .. })) {
        begin_value(&mut stack);
    }
    let mut pointer = String::new();
    for frame in &stack {
        match frame {
            Frame::Object { key: Some(key), .. } => {
                pointer.push('/');
                pointer.push_str(&super::escape_pointer_token(key));
            }
            Frame::Array { index: Some(index) } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            Frame::Object { key: None, .. } | Frame::Array { index: None } => {}
        }
    }
    Location { pointer, after_key }
}

/// A value starts: in an array, it is the next element.
fn begin_value(stack: &mut [Frame]) {
    if let Some(Frame::Array { index }) = stack.last_mut() {
        *index = Some(index.map_or(0, |i| i + 1));
    }
}

fn is_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b',' | b']' | b'}' | b':' | b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'{' | b'['
    )
}

/// The index just after the string that opens at `open` (or the end of the text).
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// A key's text with its escapes decoded; as written when it does not decode (a key cut off
/// by the position).
fn decode_key(quoted: &str) -> String {
    serde_json::from_str::<String>(quoted).unwrap_or_else(|_| {
        quoted
            .trim_start_matches('"')
            .trim_end_matches('"')
            .to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointer_at(text: &str, offset: usize) -> String {
        locate(text, offset).pointer
    }

    /// The pointer at the first occurrence of `marker` in `text`, just after it.
    fn after(text: &str, marker: &str) -> String {
        let at = text.find(marker).expect("marker in text") + marker.len();
        pointer_at(text, at)
    }

    #[test]
    fn a_scalar_is_pointed_at_just_after_it() {
        let text = r#"{"a": 1, "inner": {"list": [1, "x"], "b": true}}"#;
        assert_eq!(after(text, r#""x""#), "/inner/list/1");
        assert_eq!(after(text, "true"), "/inner/b");
        assert_eq!(after(text, "1,"), "/a");
    }

    #[test]
    fn a_container_is_pointed_at_just_before_it_and_just_after_it() {
        let text = r#"{"a": {"b": [[1], {"c": 2}]}}"#;
        let before_inner = text.find("{\"c\"").unwrap();
        assert_eq!(pointer_at(text, before_inner), "/a/b/1");
        assert_eq!(after(text, "[1]"), "/a/b/0");
        assert_eq!(after(text, r#"{"c": 2}"#), "/a/b/1");
        assert_eq!(pointer_at(text, text.len()), "");
    }

    #[test]
    fn a_key_is_pointed_at_just_after_it() {
        let text = r#"{"a": 1, "b/c~d": 2}"#;
        assert_eq!(after(text, r#""b/c~d""#), "/b~1c~0d");
        let at = text.find(": 2").unwrap() + 1;
        assert!(locate(text, at).after_key);
        assert!(!locate(text, at + 2).after_key);
        assert!(!locate(text, 1).after_key);
    }

    #[test]
    fn escaped_quotes_and_keys_are_read_as_json() {
        let text = r#"{"k\"ey": "va\"l]ue", "n\u0041me": 3}"#;
        assert_eq!(after(text, "3"), "/nAme");
        assert_eq!(after(text, r#"ue""#), r#"/k"ey"#);
    }

    #[test]
    fn lines_and_columns_become_byte_offsets() {
        let text = "{\n  \"é\": 1,\n  \"b\": x\n}";
        assert_eq!(offset_of(text, 1, 0), 0);
        assert_eq!(offset_of(text, 2, 0), 2);
        assert_eq!(offset_of(text, 3, 2), text.find("\"b\"").unwrap());
        assert_eq!(offset_of(text, 9, 9), text.len());
    }
}
