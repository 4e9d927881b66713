//! Reading what a provider answered: JSON into types, naming what did not fit, and the message
//! of an error body.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::ModelError;

/// Decodes `bytes` as `T`, naming the path of what did not fit (`choices[0].message`).
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, ModelError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." {
            ModelError::Malformed(format!("{what}: {inner}"))
        } else {
            ModelError::Malformed(format!("{what}, at `{path}`: {inner}"))
        }
    })
}

/// The error for a call of an answer that has no name: `call` says what a call is in the
/// provider's API and `position` where it stands, as the API counts: `tool call 1` and
/// `function call 1` among the calls, `tool_use at block 1` among all the content blocks.
pub(crate) fn no_name(call: &str, position: usize) -> ModelError {
    ModelError::Malformed(format!("{call} {position} of the answer has no name"))
}

/// The message a provider put in an error body: `error.message` (OpenAI, vLLM, llama.cpp,
/// Ollama), `error` as a string, `message`, or `detail` (FastAPI servers); else the body's
/// text, shortened.
pub(crate) fn error_message(body: &[u8]) -> Option<String> {
    const MAX_CHARS: usize = 1_000;
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let text = |value: Option<&Value>| {
            value
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        let found = text(value.pointer("/error/message"))
            .or_else(|| text(value.get("error")))
            .or_else(|| text(value.get("message")))
            .or_else(|| text(value.get("detail")))
            .or_else(|| text(value.pointer("/detail/0/msg")));
        if found.is_some() {
            return found;
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut short: String = text.chars().take(MAX_CHARS).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    Some(short)
}
