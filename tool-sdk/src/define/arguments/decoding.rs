//! The decoding itself: one plain parse; a second look when it fails, and for what a decoded
//! value no longer tells (a key named twice below the top, a number that changed).

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::classify::{classify, named_twice, syntax_error};
use super::distinct::keys_distinct;
use super::scan::{scan, Finding, Look};
use super::unique::UniqueKeys;
use super::watch::{Watch, Watched};
use super::{json_type, MAX_ARGUMENTS_DEPTH};
use crate::define::{ArgumentProblem, ToolError};

/// Decodes `arguments` into `T`. An empty text counts as `{}`, as some models send it for tools
/// without parameters.
///
/// The fast path is one plain `serde_json` parse. Only a failure pays for a second look, and
/// that look is not generic: each tool's decoder is compiled once, for `serde_json`'s
/// deserializer in a [`Watched`] one, which keeps what `#[tool]` adds to a build small.
///
/// A key named twice in an object a struct decodes is refused by serde's derive itself. An
/// object that something else decoded (a map or a `serde_json::Value` would keep the last of
/// the two; a member nothing decodes is checked by nothing) is seen going by, and only then are
/// the arguments given a look for repeated keys once decoded: a quick one, and the full one
/// only when the quick one is unsure. Arguments of structs, lists and scalars, the common case,
/// pay for no look at all.
///
/// An optimized build inlines the fast path into each tool's call, so that it runs in the
/// call's frame (a debug build, which inlines nothing, compiles it once per tool).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn decode<T: DeserializeOwned>(tool: &str, arguments: &str) -> Result<T, ToolError> {
    let text = object_text(tool, arguments)?;
    let watch = Watch::new(false);
    match watched_decode(text, &watch) {
        Ok(decoded) if !watch.get() => Ok(decoded),
        decoded => decode_further(tool, text, decoded, &watch),
    }
}

/// What [`decode`] does past its fast path, out of its line: a second try when the plain
/// parse failed, and the look for repeated keys when an object went by that could keep one.
#[cold]
fn decode_further<T: DeserializeOwned>(
    tool: &str,
    text: &str,
    decoded: serde_json::Result<T>,
    watch: &Watch,
) -> Result<T, ToolError> {
    let decoded = match decoded {
        Ok(decoded) => decoded,
        Err(error) => decode_without_nulls(tool, text, &error, watch)?,
    };
    // The quick look proves nearly every text clean; the full one says what is wrong and
    // where, when anything might be.
    if watch.get() && !keys_distinct(text) {
        let keys = Look {
            keys: true,
            numbers: false,
        };
        if let Some(finding) = scan(text, keys) {
            return Err(refused(tool, finding));
        }
    }
    Ok(decoded)
}

/// `serde_json::from_str`, with the decoder watched for objects that could let a repeated key
/// by.
#[inline]
fn watched_decode<T: DeserializeOwned>(text: &str, watch: &Watch) -> serde_json::Result<T> {
    let mut decoder = serde_json::Deserializer::from_str(text);
    let decoded = T::deserialize(Watched::new(&mut decoder, watch))?;
    decoder.end()?;
    Ok(decoded)
}

/// The second try of [`decode`], out of its fast path: `null` members left out.
#[cold]
fn decode_without_nulls<T: DeserializeOwned>(
    tool: &str,
    text: &str,
    error: &serde_json::Error,
    watch: &Watch,
) -> Result<T, ToolError> {
    if let Some(stripped) = without_nulls(text) {
        if let Ok(decoded) = watched_decode(&stripped, watch) {
            return Ok(decoded);
        }
    }
    Err(classify(tool, text, error))
}

/// What [`scan`] found, as the invalid arguments it makes.
#[cold]
fn refused(tool: &str, finding: Finding) -> ToolError {
    let problem = match finding {
        Finding::TooDeep => {
            return ToolError::ArgumentsTooDeep {
                tool: tool.to_owned(),
                limit: MAX_ARGUMENTS_DEPTH,
            }
        }
        Finding::Duplicate { pointer, key } => named_twice(pointer, &key),
        Finding::Inexact { pointer, literal } => ArgumentProblem {
            pointer,
            expected: "a number the tool receives as written: an integer from \
                       -9223372036854775808 to 18446744073709551615, or a number with a \
                       fraction or an exponent written as its 64-bit float writes it back (the \
                       shortest form that reads as that float: `0.1`, not \
                       `0.10000000000000000001`)"
                .to_owned(),
            found: Some(format!("number `{}`", elided(&literal))),
        },
    };
    ToolError::InvalidArguments {
        tool: tool.to_owned(),
        problem: Box::new(problem),
    }
}

/// A number's text, its middle left out when it is long.
fn elided(literal: &str) -> Cow<'_, str> {
    const KEEP: usize = 24;
    if literal.len() <= 2 * KEEP {
        return Cow::Borrowed(literal);
    }
    // A number's text is ASCII: every byte offset is a character boundary.
    let head = literal.get(..KEEP).unwrap_or_default();
    let tail = literal.get(literal.len() - KEEP..).unwrap_or_default();
    Cow::Owned(format!("{head}…{tail} ({} characters)", literal.len()))
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
/// twice, with the same error. So is a number the value would not hold as written (an integer
/// beyond 64 bits, which would become the nearest float; more digits than a float holds):
/// the tool runs with the number that was asked for, or not at all.
// Dynamic tools (feature `dynamic`) are its callers.
#[cfg_attr(not(feature = "dynamic"), allow(dead_code))]
pub(crate) fn decode_object(tool: &str, arguments: &str) -> Result<Value, ToolError> {
    let text = object_text(tool, arguments)?;
    let value = serde_json::from_str::<UniqueKeys>(text)
        .map(|object| object.0)
        .map_err(|error| classify(tool, text, &error))?;
    // Integers that fit decode as integers, exactly; only a float may be another number.
    if has_float(&value) {
        let numbers = Look {
            keys: false,
            numbers: true,
        };
        if let Some(finding) = scan(text, numbers) {
            return Err(refused(tool, finding));
        }
    }
    Ok(value)
}

fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(members) => members.values().any(has_float),
        _ => false,
    }
}

/// The arguments text when it holds an object (`{}` when it is blank). serde would also
/// decode a struct from a JSON array, by position; arguments are named, so anything but an
/// object is refused here, before decoding.
#[inline]
fn object_text<'a>(tool: &str, arguments: &'a str) -> Result<&'a str, ToolError> {
    // The common case, an object with no leading whitespace, costs one comparison here; the
    // rest is out of line.
    if arguments.as_bytes().first() == Some(&b'{') {
        return Ok(arguments);
    }
    other_text(tool, arguments)
}

/// [`object_text`] of arguments that do not start with `{`.
#[cold]
#[inline(never)]
fn other_text<'a>(tool: &str, arguments: &'a str) -> Result<&'a str, ToolError> {
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
    fn a_key_named_twice_is_refused_at_any_depth_by_typed_and_dynamic_tools_alike() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Typed {
            meta: Option<Value>,
            labels: Option<std::collections::BTreeMap<String, String>>,
            items: Option<Vec<Value>>,
        }
        for (text, pointer, key) in [
            (
                r#"{"meta": {"owner": "ana", "owner": "root"}}"#,
                "/meta/owner",
                "owner",
            ),
            (
                r#"{"labels": {"a": "x", "b": "y", "a": "z"}}"#,
                "/labels/a",
                "a",
            ),
            (
                r#"{"items": [{"k": 1}, {"k": 1, "k": 2}]}"#,
                "/items/1/k",
                "k",
            ),
            (
                r#"{"meta": {"deep": [{"x": {"y": 1, "y": 2}}]}}"#,
                "/meta/deep/0/x/y",
                "y",
            ),
        ] {
            let typed = problem_decoding::<Typed>(text);
            let dynamic = match decode_object("t", text) {
                Err(ToolError::InvalidArguments { problem, .. }) => *problem,
                other => panic!("expected invalid arguments, got {other:?}"),
            };
            assert_eq!(typed, dynamic, "{text}");
            assert_eq!(typed.pointer, pointer, "{text}");
            assert_eq!(typed.expected, "each field once", "{text}");
            assert_eq!(typed.found, Some(format!("`{key}` twice")), "{text}");
        }
        // The same key in different objects is no repetition.
        assert!(decode::<Typed>(
            "t",
            r#"{"meta": {"a": {"a": 1}}, "items": [{"a": 1}, {"a": 2}]}"#
        )
        .is_ok());
    }

    #[test]
    fn a_member_the_decoder_ignores_is_still_held_to_the_depth_limit() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Lenient {
            inner: Option<std::collections::BTreeMap<String, u8>>,
            outer: Option<Open>,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Open {}
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let text = format!(r#"{{"inner": {{}}, "outer": {{"junk": {deep}}}}}"#);
        assert!(matches!(
            decode::<Lenient>("t", &text),
            Err(ToolError::ArgumentsTooDeep { limit: 128, .. })
        ));
    }

    #[test]
    fn a_number_a_dynamic_tool_would_receive_changed_is_refused() {
        for (text, pointer) in [
            (r#"{"amount": 18446744073709551617}"#, "/amount"),
            (r#"{"list": [1.5, -9223372036854775809]}"#, "/list/1"),
            (r#"{"rate": 0.10000000000000000001}"#, "/rate"),
        ] {
            match decode_object("t", text) {
                Err(ToolError::InvalidArguments { problem, .. }) => {
                    assert_eq!(problem.pointer, pointer, "{text}");
                    assert!(
                        problem
                            .found
                            .as_deref()
                            .is_some_and(|found| found.starts_with("number `")),
                        "{problem:?}"
                    );
                }
                other => panic!("{text}: expected invalid arguments, got {other:?}"),
            }
        }
        let exact =
            r#"{"a": 18446744073709551615, "b": -9223372036854775808, "c": 0.1, "d": 1e300}"#;
        assert_eq!(
            decode_object("t", exact).unwrap(),
            serde_json::from_str::<Value>(exact).unwrap()
        );
    }

    #[test]
    fn empty_text_counts_as_empty_object() {
        assert_eq!(decode_object("t", "  ").unwrap(), serde_json::json!({}));
    }
}
