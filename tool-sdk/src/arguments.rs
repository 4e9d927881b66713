//! Decoding a model's arguments text, and classifying what is wrong with it.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ArgumentProblem, ToolError};

/// Default limit on the length of an arguments text: 1 MiB.
pub const DEFAULT_MAX_ARGUMENTS_BYTES: usize = 1 << 20;

/// Deepest nesting of arguments accepted. This is the limit of the JSON decoder, which refuses
/// deeper input before it could exhaust the stack.
pub const MAX_ARGUMENTS_DEPTH: usize = 128;

/// Decodes `arguments` into `T`. An empty text counts as `{}`, as some models send it for tools
/// without parameters.
///
/// The fast path is one plain `serde_json` parse; only a failure pays for the second look that
/// finds the JSON pointer and the kind of the problem.
#[inline]
pub(crate) fn decode<T: DeserializeOwned>(tool: &str, arguments: &str) -> Result<T, ToolError> {
    let text = object_text(tool, arguments)?;
    serde_json::from_str(text)
        .or_else(|error| without_nulls::<T>(text).ok_or_else(|| classify::<T>(tool, text, &error)))
}

/// Strict dialects (OpenAI strict mode) make every property required and let the model say
/// `null` for the ones it leaves out. A field with a default cannot take `null`, so when the
/// arguments fail to decode, they are decoded once more with every `null` object member
/// removed: left out, as the canonical schema allows. Only the failure path pays for it.
fn without_nulls<T: DeserializeOwned>(text: &str) -> Option<T> {
    fn strip(value: &mut Value) -> bool {
        match value {
            Value::Object(object) => {
                let before = object.len();
                object.retain(|_, v| !v.is_null());
                let mut changed = object.len() != before;
                for child in object.values_mut() {
                    changed |= strip(child);
                }
                changed
            }
            Value::Array(items) => {
                let mut changed = false;
                for item in items {
                    changed |= strip(item);
                }
                changed
            }
            _ => false,
        }
    }
    let mut value: Value = serde_json::from_str(text).ok()?;
    if !strip(&mut value) {
        return None;
    }
    T::deserialize(value).ok()
}

/// Decodes `arguments` into a JSON object value (for tools whose schema is only known at run
/// time).
pub(crate) fn decode_object(tool: &str, arguments: &str) -> Result<Value, ToolError> {
    let text = non_empty(arguments);
    let value: Value = serde_json::from_str(text).map_err(|error| syntax_error(tool, &error))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(ToolError::ArgumentsNotObject {
            tool: tool.to_owned(),
            found: json_type(&value),
        })
    }
}

/// The arguments text when it holds an object (`{}` when it is blank). serde would also
/// decode a struct from a JSON array, by position; arguments are named, so anything but an
/// object is refused here, before decoding.
#[inline]
fn object_text<'a>(tool: &str, arguments: &'a str) -> Result<&'a str, ToolError> {
    // The common case, an object with no leading whitespace, costs one comparison.
    if arguments.as_bytes().first() == Some(&b'{') {
        return Ok(arguments);
    }
    let trimmed = arguments.trim_start();
    if trimmed.is_empty() {
        return Ok("{}");
    }
    if trimmed.starts_with('{') {
        return Ok(arguments);
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(value) => Err(ToolError::ArgumentsNotObject {
            tool: tool.to_owned(),
            found: json_type(&value),
        }),
        Err(error) => Err(syntax_error(tool, &error)),
    }
}

fn non_empty(arguments: &str) -> &str {
    if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    }
}

fn classify<T: DeserializeOwned>(tool: &str, text: &str, error: &serde_json::Error) -> ToolError {
    if !error.is_data() {
        return syntax_error(tool, error);
    }
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
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let (pointer, message) = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Err(error) => (pointer_of(error.path()), strip_position(error.inner())),
        // The second decode cannot succeed where the first failed; keep the first's message.
        Ok(_) => (String::new(), strip_position(error)),
    };
    ToolError::InvalidArguments {
        tool: tool.to_owned(),
        problem: Box::new(problem_of(pointer, &message)),
    }
}

fn syntax_error(tool: &str, error: &serde_json::Error) -> ToolError {
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
fn strip_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => message,
    }
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            Segment::Map { key } | Segment::Enum { variant: key } => {
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(key));
            }
            Segment::Unknown => pointer.push_str("/?"),
        }
    }
    pointer
}

pub(crate) fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Splits serde's message into where, what was expected and what came.
fn problem_of(mut pointer: String, message: &str) -> ArgumentProblem {
    // serde_path_to_error puts an unknown field itself on the path; a missing one is not.
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
        return ArgumentProblem {
            pointer,
            expected: "each field once".to_owned(),
            found: Some(format!("`{field}` twice")),
        };
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
    ArgumentProblem {
        pointer,
        expected: message.to_owned(),
        found: None,
    }
}

fn backticked(text: Option<&str>) -> Option<&str> {
    text?.strip_prefix('`')?.strip_suffix('`')
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        a: i64,
        inner: Option<Inner>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        list: Vec<u8>,
    }

    fn problem(arguments: &str) -> ArgumentProblem {
        match decode::<Args>("t", arguments) {
            Err(ToolError::InvalidArguments { problem, .. }) => *problem,
            other => panic!("expected invalid arguments, got {other:?}"),
        }
    }

    #[test]
    fn wrong_type_names_pointer_expected_and_found() {
        let p = problem(r#"{"a": 1, "inner": {"list": [1, "x"]}}"#);
        assert_eq!(p.pointer, "/inner/list/1");
        assert_eq!(p.expected, "u8");
        assert_eq!(p.found.as_deref(), Some(r#"string "x""#));
    }

    #[test]
    fn missing_and_unknown_fields_point_at_the_field() {
        let p = problem("{}");
        assert_eq!(p.pointer, "/a");
        assert_eq!(p.expected, "the required field `a`");
        let p = problem(r#"{"a": 1, "b": 2}"#);
        assert_eq!(p.pointer, "/b");
        assert!(p.expected.contains("`a`"), "{p:?}");
    }

    #[test]
    fn messages_never_carry_line_and_column() {
        let e = decode::<Args>("t", r#"{"a": "1"}"#).unwrap_err();
        assert!(!e.to_string().contains("line"), "{e}");
        assert!(!e.model_message().contains("column"), "{e}");
    }

    #[test]
    fn not_an_object_and_malformed_are_told_apart() {
        assert!(matches!(
            decode::<Args>("t", "[1]"),
            Err(ToolError::ArgumentsNotObject {
                found: "an array",
                ..
            })
        ));
        assert!(matches!(
            decode::<Args>("t", r#"{"a": "#),
            Err(ToolError::MalformedArguments { .. })
        ));
    }

    #[test]
    fn deep_nesting_is_refused_as_too_deep() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let text = format!(r#"{{"a": 1, "inner": {deep}}}"#);
        assert!(matches!(
            decode::<Args>("t", &text),
            Err(ToolError::ArgumentsTooDeep { limit: 128, .. })
        ));
        assert!(matches!(
            decode_object("t", &deep),
            Err(ToolError::ArgumentsTooDeep { .. })
        ));
    }

    #[test]
    fn an_array_is_not_taken_for_positional_arguments() {
        assert!(matches!(
            decode::<Inner>("t", "[[1, 2]]"),
            Err(ToolError::ArgumentsNotObject {
                found: "an array",
                ..
            })
        ));
        assert!(matches!(
            decode::<Inner>("t", "  [1"),
            Err(ToolError::MalformedArguments { .. })
        ));
        assert!(decode::<Inner>("t", r#"  {"list": [1]}"#).is_ok());
    }

    #[test]
    fn null_for_a_field_with_a_default_means_left_out() {
        #[derive(Debug, serde::Deserialize)]
        struct WithDefault {
            #[serde(default)]
            n: u32,
            inner: Option<Inner>,
        }
        let decoded: WithDefault = decode("t", r#"{"n": null, "inner": null}"#).unwrap();
        assert_eq!(decoded.n, 0);
        assert!(decoded.inner.is_none());
        // A required field is still required.
        assert!(decode::<Args>("t", r#"{"a": null}"#).is_err());
    }

    #[test]
    fn empty_text_counts_as_empty_object() {
        assert_eq!(decode_object("t", "  ").unwrap(), serde_json::json!({}));
    }
}
