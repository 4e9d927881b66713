//! Model replies for scripted runs.

use tool_sdk::{AssistantMessage, ToolCall};

/// A reply calling each `(id, name, arguments)`, in order.
pub fn calls(calls: &[(&str, &str, &str)]) -> AssistantMessage {
    AssistantMessage::with_tool_calls(
        calls
            .iter()
            .map(|(id, name, args)| ToolCall::new(*id, *name, *args))
            .collect(),
    )
}

/// A reply calling each `(id, name)`, in order, with the arguments `{"reference": "r"}`.
pub fn calls_with_reference(calls: &[(&str, &str)]) -> AssistantMessage {
    AssistantMessage::with_tool_calls(
        calls
            .iter()
            .map(|(id, name)| ToolCall::new(*id, *name, r#"{"reference": "r"}"#))
            .collect(),
    )
}

/// A reply answering `text`, calling nothing.
pub fn answer(text: &str) -> AssistantMessage {
    AssistantMessage {
        text: Some(text.into()),
        tool_calls: vec![],
    }
}
