//! The decoding itself: one plain parse, and a second look only when it fails.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::classify::{classify, syntax_error};
use super::json_type;
use super::unique::UniqueKeys;
use crate::define::ToolError;

/// Decodes `arguments` into `T`. An empty text counts as `{}`, as some models send it for tools
/// without parameters.
///
/// The fast path is one plain `serde_json` parse. Only a failure pays for a second look, and
/// that look is not generic: each tool's decoder is compiled once, for `serde_json::from_str`,
/// which keeps what `#[tool]` adds to a build small.
#[inline]
pub(crate) fn decode<T: DeserializeOwned>(tool: &str, arguments: &str) -> Result<T, ToolError> {
    let text = object_text(tool, arguments)?;
    let error = match serde_json::from_str(text) {
        Ok(decoded) => return Ok(decoded),
        Err(error) => error,
    };
    if let Some(stripped) = without_nulls(text) {
        if let Ok(decoded) = serde_json::from_str(&stripped) {
            return Ok(decoded);
        }
    }
    Err(classify(tool, text, &error))
}

/// Strict dialects (OpenAI strict mode) make every property required and let the model say
/// `null` for the ones it leaves out. A field with a default cannot take `null`, so when the
/// arguments fail to decode, they are decoded once more with every `null` object member
/// removed: left out, as the canonical schema allows. This is the text to decode again, when
/// there was a `null` member to remove.
fn without_nulls(text: &str) -> Option<String> {
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
    serde_json::to_string(&value).ok()
}

/// Decodes `arguments` into a JSON object value (for tools whose schema is only known at run
/// time). A key named twice in any object is refused, as a typed tool refuses a field named
/// twice, with the same error.
pub(crate) fn decode_object(tool: &str, arguments: &str) -> Result<Value, ToolError> {
    let text = object_text(tool, arguments)?;
    serde_json::from_str::<UniqueKeys>(text)
        .map(|object| object.0)
        .map_err(|error| classify(tool, text, &error))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::define::ArgumentProblem;

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
        problem_decoding::<Args>(arguments)
    }

    /// The problem decoding `arguments` into `T`, which must be invalid arguments.
    fn problem_decoding<T: DeserializeOwned + std::fmt::Debug>(arguments: &str) -> ArgumentProblem {
        match decode::<T>("t", arguments) {
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
    fn pointers_hold_across_lines_and_inside_arrays() {
        let p = problem("{\n  \"a\": 1,\n  \"inner\": {\n    \"list\": [1,\n      300]\n  }\n}");
        assert_eq!(p.pointer, "/inner/list/1");
        assert_eq!(p.found.as_deref(), Some("integer `300`"));
        let p = problem(r#"{"a": 1, "inner": {}}"#);
        assert_eq!(p.pointer, "/inner/list");
        assert_eq!(p.expected, "the required field `list`");
    }

    #[test]
    fn well_formed_shapes_serde_json_calls_syntax_are_invalid_values() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        enum Kind {
            Alpha,
            Beta { n: u8 },
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Shapes {
            kind: Option<Kind>,
            pair: Option<(u8, bool)>,
        }
        let problem = problem_decoding::<Shapes>;
        let p = problem(r#"{"kind": {}}"#);
        assert_eq!(
            (p.pointer.as_str(), p.expected.as_str()),
            ("/kind", "a value")
        );
        let p = problem(r#"{"pair": [1, true, 3]}"#);
        assert_eq!(
            (p.pointer.as_str(), p.expected.as_str()),
            ("/pair/2", "nothing more")
        );
        let p = problem(r#"{"kind": {"Gamma": 1}}"#);
        assert_eq!(p.pointer, "/kind");
        assert!(
            p.found.as_deref().unwrap_or_default().contains("Gamma"),
            "{p:?}"
        );
        let p = problem(r#"{"kind": {"Beta": {"n": -1}}}"#);
        assert_eq!(p.pointer, "/kind/Beta/n");
    }

    #[test]
    fn messages_never_carry_line_and_column() {
        let e = decode::<Args>("t", r#"{"a": "1"}"#).unwrap_err();
        assert!(!e.to_string().contains("line"), "{e}");
        assert!(!e.model_message().contains("column"), "{e}");
    }

    #[test]
    fn not_an_object_names_the_bare_json_type() {
        for (text, found) in [("7", "number"), ("null", "null"), ("\"x\"", "string")] {
            let error = decode::<Args>("t", text).unwrap_err();
            assert!(
                matches!(error, ToolError::ArgumentsNotObject { found: f, .. } if f == found),
                "{text}: {error:?}"
            );
            let error = decode_object("t", text).unwrap_err();
            assert!(
                matches!(error, ToolError::ArgumentsNotObject { found: f, .. } if f == found),
                "{text}: {error:?}"
            );
        }
        let error = decode::<Args>("t", "[1]").unwrap_err();
        assert_eq!(
            error.model_message(),
            "Error: the arguments must be a JSON object, not an array."
        );
        assert_eq!(
            error.to_string(),
            "arguments for tool `t` must be a JSON object, got an array"
        );
    }

    #[test]
    fn not_an_object_and_malformed_are_told_apart() {
        assert!(matches!(
            decode::<Args>("t", "[1]"),
            Err(ToolError::ArgumentsNotObject { found: "array", .. })
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
            Err(ToolError::ArgumentsNotObject { found: "array", .. })
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
