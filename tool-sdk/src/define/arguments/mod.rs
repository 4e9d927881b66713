//! Decoding a model's arguments text, and classifying what is wrong with it.

mod classify;
mod decoding;
mod distinct;
pub(crate) mod fields;
mod pointer;
#[cfg(test)]
mod pointer_properties;
mod scan;
mod unique;
mod watch;

use serde_json::Value;

#[cfg_attr(not(feature = "dynamic"), allow(unused_imports))]
pub(crate) use decoding::{decode, decode_object};

/// Default limit on the length of an arguments text: 1 MiB.
pub const DEFAULT_MAX_ARGUMENTS_BYTES: usize = 1 << 20;

/// Deepest nesting of arguments accepted. This is the limit of the JSON decoder, which refuses
/// deeper input before it could exhaust the stack.
pub const MAX_ARGUMENTS_DEPTH: usize = 128;

pub(crate) fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A bare JSON type of [`json_type`] as prose says it: `an array`, `a string`, `null`.
pub(crate) fn with_article(json_type: &str) -> String {
    match json_type {
        "null" => "null".to_owned(),
        word if word.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {word}"),
        word => format!("a {word}"),
    }
}
