//! What is wrong with arguments that did not decode: malformed, too deep, or which value is
//! not what the tool takes, with what was expected and what came.

use serde_json::Value;

use super::pointer::{locate, offset_of};
use super::{escape_pointer_token, json_type, MAX_ARGUMENTS_DEPTH};
use crate::define::{ArgumentProblem, ToolError};

/// What is wrong with arguments that did not decode, `error` being serde_json's first error.
///
/// Not generic: the pointer comes from where serde_json stopped (see [`locate`]), so no
/// argument type is decoded a second time.
pub(super) fn classify(tool: &str, text: &str, error: &serde_json::Error) -> ToolError {
    // Malformed JSON is told before a wrong value, even when the wrong value comes first.
    match serde_json::from_str::<Value>(text) {
        Err(error) => return syntax_error(tool, &error),
        Ok(value) if !value.is_object() => {
            return ToolError::ArgumentsNotObject {
                tool: tool.to_owned(),
                found: json_type(&value),
            }
        }
        Ok(_) => {}
    }
    // Well-formed: even an error serde_json files as syntax (an enum written `{}`, an array
    // longer than a tuple) is a value the tool does not take.
    let message = strip_position(error);
    let pointer = pointer_of(text, error, &message);
    ToolError::InvalidArguments {
        tool: tool.to_owned(),
        problem: Box::new(problem_of(pointer, &message)),
    }
}

/// The pointer of the value serde_json stopped at with `error` (whose message without its
/// position is `message`), in well-formed `text`.
pub(super) fn pointer_of(text: &str, error: &serde_json::Error, message: &str) -> String {
    let mut offset = offset_of(text, error.line(), error.column());
    if !error.is_data() {
        // serde_json places these just past the byte it peeked at, not after what it read.
        offset = offset.saturating_sub(1);
    }
    let location = locate(text, offset);
    let mut pointer = location.pointer;
    // An enum written as `{"Variant": ...}` whose variant is unknown: the key is the variant, not
    // a member; the pointer is the enum's.
    if location.after_key && message.starts_with("unknown variant ") {
        pointer.truncate(pointer.rfind('/').unwrap_or(0));
    }
    pointer
}

/// Arguments that are not JSON, or nested deeper than the decoder goes.
pub(super) fn syntax_error(tool: &str, error: &serde_json::Error) -> ToolError {
    let message = strip_position(error);
    if message.starts_with("recursion limit exceeded") {
        return ToolError::ArgumentsTooDeep {
            tool: tool.to_owned(),
            limit: MAX_ARGUMENTS_DEPTH,
        };
    }
    let at = if error.line() == 1 {
        format!("at character {}", error.column())
    } else {
        format!("at line {}, column {}", error.line(), error.column())
    };
    ToolError::MalformedArguments {
        tool: tool.to_owned(),
        message: format!("{message} {at}"),
    }
}

/// serde_json's message without its " at line L column C" suffix.
pub(super) fn strip_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => message,
    }
}

/// Splits serde's message into where, what was expected and what came.
fn problem_of(mut pointer: String, message: &str) -> ArgumentProblem {
    // An unknown or duplicate field is on the pointer already (serde_json stops just after its
    // key); a missing one is not (it stops after the object).
    let push_field = |pointer: &mut String, field: &str| {
        let token = format!("/{}", escape_pointer_token(field));
        if !pointer.ends_with(&token) {
            pointer.push_str(&token);
        }
    };
    if let Some(field) = backticked(message.strip_prefix("missing field ")) {
        push_field(&mut pointer, field);
        return ArgumentProblem {
            pointer,
            expected: format!("the required field `{field}`"),
            found: Some("nothing".to_owned()),
        };
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (field, allowed) = rest
            .split_once(", expected ")
            .unwrap_or((rest, "no fields"));
        if let Some(name) = backticked(Some(field)) {
            push_field(&mut pointer, name);
        }
        return ArgumentProblem {
            pointer,
            expected: format!("only the known fields ({allowed})"),
            found: Some(format!("unknown field {field}")),
        };
    }
    if let Some(field) = backticked(message.strip_prefix("duplicate field ")) {
        push_field(&mut pointer, field);
        return named_twice(pointer, field);
    }
    for prefix in [
        "invalid type: ",
        "invalid value: ",
        "unknown variant ",
        "invalid length ",
    ] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.split_once(", expected ") {
                let found = if prefix == "unknown variant " {
                    format!("unknown variant {found}")
                } else if prefix == "invalid length " {
                    format!("length {found}")
                } else {
                    found.to_owned()
                };
                return ArgumentProblem {
                    pointer,
                    expected: expected.to_owned(),
                    found: Some(found),
                };
            }
        }
    }
    // What serde_json files as syntax errors in well-formed JSON.
    let (expected, found) = match message {
        "expected value" => ("a value".to_owned(), Some("nothing".to_owned())),
        "trailing characters" => ("nothing more".to_owned(), Some("more".to_owned())),
        _ => (message.to_owned(), None),
    };
    ArgumentProblem {
        pointer,
        expected,
        found,
    }
}

/// A key named twice in one object; `pointer` is the member's.
pub(super) fn named_twice(pointer: String, key: &str) -> ArgumentProblem {
    ArgumentProblem {
        pointer,
        expected: "each field once".to_owned(),
        found: Some(format!("`{key}` twice")),
    }
}

fn backticked(text: Option<&str>) -> Option<&str> {
    text?.strip_prefix('`')?.strip_suffix('`')
}
