//! A call's arguments as the JSON object an API takes: Anthropic's `tool_use` input and
//! Gemini's `args` must be objects, while a model may have sent any text.

/// The key under which a call's arguments go, as the text they are, when they are not a JSON
/// object, so that the model reads what it sent beside the error its result carries, not
/// `{}`. Anthropic's and Gemini's models use it.
pub const UNREADABLE_ARGUMENTS_KEY: &str = "unreadable_arguments";

/// `arguments` as a JSON object: an object as it is, blank arguments as `{}`, and anything
/// else (text that is not JSON, an array, a number) under [`UNREADABLE_ARGUMENTS_KEY`] as the
/// text it is.
#[cfg(any(feature = "anthropic", feature = "gemini"))]
pub(crate) fn arguments_object(arguments: &str) -> serde_json::Value {
    use serde_json::{Map, Value};

    if arguments.trim().is_empty() {
        return Value::Object(Map::new());
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => object,
        _ => {
            let mut wrapped = Map::new();
            wrapped.insert(
                UNREADABLE_ARGUMENTS_KEY.to_owned(),
                Value::String(arguments.to_owned()),
            );
            Value::Object(wrapped)
        }
    }
}
