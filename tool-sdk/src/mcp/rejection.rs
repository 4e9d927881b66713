//! The JSON-RPC 2.0 answer to a message that cannot be read, whichever transport brought it:
//! `-32700` for what is not JSON, `-32600` for JSON that is not a message or nests too deep,
//! always with `"id": null` (the specification's id when the request's could not be read).

use serde_json::{json, Value};

/// How deep a message may nest: serde_json refuses deeper values (its recursion limit of 128,
/// less the one level of its own check).
pub(crate) const MAX_DEPTH: usize = 127;

/// Why a message was refused, as the answer it gets.
#[derive(Debug)]
pub(crate) struct Rejection {
    /// The JSON-RPC error answer, one line of JSON.
    pub(crate) answer: String,
    /// The message has a notification's form (an object with a `method` string and no
    /// `id`): JSON-RPC forbids answering it where the transport lets a server stay silent.
    pub(crate) notification: bool,
}

/// The rejection of `message`, which serde could not read as a JSON-RPC message (`error`).
pub(crate) fn reject(message: &[u8], error: &serde_json::Error) -> Rejection {
    if error.is_data() {
        // Valid JSON within the depth limit: only its shape is wrong.
        return Rejection {
            answer: invalid_request(
                "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
                None,
            ),
            notification: is_notification(message),
        };
    }
    let answer = if nests_deeper_than(message, MAX_DEPTH) {
        invalid_request(
            &format!("Invalid Request: the message nests deeper than {MAX_DEPTH} levels"),
            Some(json!({ "maxDepth": MAX_DEPTH })),
        )
    } else {
        error_line(-32700, "Parse error: not JSON", None)
    };
    Rejection {
        answer,
        notification: false,
    }
}

/// The answer to a line longer than `limit` bytes.
pub(crate) fn too_long(limit: usize) -> String {
    invalid_request(
        &format!("Invalid Request: the line is longer than the limit of {limit} bytes"),
        Some(json!({ "maxLineBytes": limit })),
    )
}

/// Whether `message` (valid JSON) has the form of a notification.
fn is_notification(message: &[u8]) -> bool {
    serde_json::from_slice::<Value>(message).is_ok_and(|value| {
        value.get("id").is_none() && value.get("method").is_some_and(Value::is_string)
    })
}

/// Whether arrays and objects in `text` nest deeper than `limit`, strings aside. Counts
/// without parsing, so it works on values no parser would descend into.
fn nests_deeper_than(text: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn invalid_request(message: &str, data: Option<Value>) -> String {
    error_line(-32600, message, data)
}

/// A JSON-RPC 2.0 error answer whose request's id could not be read: `id` is `null`.
fn error_line(code: i64, message: &str, data: Option<Value>) -> String {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({ "jsonrpc": "2.0", "id": null, "error": error }).to_string()
}

#[cfg(test)]
mod tests {
    use rmcp::model::ClientJsonRpcMessage;

    use super::*;

    fn rejection(message: &str) -> Option<Rejection> {
        let error = serde_json::from_str::<ClientJsonRpcMessage>(message).err()?;
        Some(reject(message.as_bytes(), &error))
    }

    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn the_depth_limit_is_serde_jsons() {
        // The message itself and `params` take two levels.
        let message = |depth| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                nested(depth)
            )
        };
        assert!(rejection(&message(MAX_DEPTH - 2)).is_none());
        let refused = rejection(&message(MAX_DEPTH - 1)).expect("one level too deep");
        assert!(
            refused.answer.contains("deeper than 127 levels"),
            "{refused:?}"
        );
    }

    #[test]
    fn depth_is_counted_outside_strings_only() {
        assert!(!nests_deeper_than(br#"["[[[[", "\"[[["]"#, 1));
        assert!(nests_deeper_than(br#"[{"a": []}]"#, 2));
        assert!(!nests_deeper_than(br#"[{"a": []}]"#, 3));
    }

    #[test]
    fn answers_carry_a_null_id() {
        for (message, code) in [
            ("not json", -32700),
            (r#"{"jsonrpc":"2.0","id":5,"method":7}"#, -32600),
            ("[1, 2]", -32600),
        ] {
            let refused = rejection(message).expect("refused");
            let answer: Value = serde_json::from_str(&refused.answer).expect("JSON");
            assert_eq!(answer.get("id"), Some(&Value::Null), "{answer}");
            assert_eq!(answer["error"]["code"], code, "{answer}");
            assert!(!refused.notification);
        }
    }

    #[test]
    fn notifications_are_told_apart() {
        let refused =
            rejection(r#"{"jsonrpc":"2.0","method":"$/progress","params":7}"#).expect("refused");
        assert!(refused.notification);
    }
}
