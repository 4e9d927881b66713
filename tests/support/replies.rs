//! Model replies for scripted runs, and what a run answered them with.

use tool_sdk::model::ToolResultStatus;
use tool_sdk::run::LoopStatus;
use tool_sdk::store::PausedTurn;
use tool_sdk::{AssistantMessage, Message, ToolCall};

/// The turn a run waits at; a run that does not wait fails the test.
pub fn paused(status: &LoopStatus) -> &PausedTurn {
    match status {
        LoopStatus::Paused(paused) => paused,
        other => panic!("the run waits for a decision: {other:?}"),
    }
}

/// What the model read as the result of the call with `id`; a call with no result fails the
/// test.
pub fn result_of<'a>(conversation: &'a [Message], id: &str) -> &'a str {
    conversation
        .iter()
        .find_map(|message| match message {
            Message::Tool(result) if result.call_id.as_deref() == Some(id) => {
                Some(result.content.as_str())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for {id} in {conversation:?}"))
}

/// The content of every tool result of `conversation`, in order.
pub fn tool_results(conversation: &[Message]) -> Vec<&str> {
    conversation
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) => Some(result.content.as_str()),
            _ => None,
        })
        .collect()
}

/// How every tool call of `conversation` ended, as its result says, in order.
pub fn tool_statuses(conversation: &[Message]) -> Vec<ToolResultStatus> {
    conversation
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) => Some(result.status),
            _ => None,
        })
        .collect()
}

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
