//! What the providers' unit tests share: samples of each API as its reference shows them, and
//! a tool to offer.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// A sample of a provider's wire format, in the shape its API reference shows
/// (`tests/samples/wire/NAME.json`).
pub(crate) fn reference_sample(name: &str) -> serde_json::Value {
    let path = format!(
        "{}/../tests/samples/wire/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// Decodes `value` as `T` and encodes it again: nothing may be lost or added.
pub(crate) fn round_trip<T: DeserializeOwned + serde::Serialize>(value: &Value) -> T {
    let typed: T = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(&serde_json::to_value(&typed).unwrap(), value);
    typed
}

/// Gets the weather.
#[crate::tool]
pub(crate) fn get_weather(
    /// The city.
    location: String,
    days: Option<u8>,
) -> String {
    format!("{location} {days:?}")
}

/// A successful result of the call `call_id` (none: a call without an id), under `key`.
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(crate) fn result(
    call_id: Option<&str>,
    key: &str,
    name: &str,
    content: &str,
) -> crate::model::Message {
    use crate::model::{Message, ToolResultMessage, ToolResultStatus};

    Message::Tool(ToolResultMessage {
        call_id: call_id.map(str::to_owned),
        key: key.to_owned(),
        name: name.to_owned(),
        content: content.to_owned(),
        parts: Vec::new(),
        status: ToolResultStatus::Success,
    })
}
