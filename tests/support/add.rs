//! The smallest run with a tool call: an `add` tool, and a model that calls it once (`call_9`,
//! 1 + 2) then answers `3`.

use tool_sdk::{tool, AssistantMessage, ScriptedModel, ToolCall, ToolRegistry};

/// Adds two numbers.
#[tool]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Calls `add` with 1 and 2, then answers `3`.
pub fn script() -> ScriptedModel {
    ScriptedModel::new([
        AssistantMessage::with_tool_calls(vec![ToolCall::new("call_9", "add", r#"{"a":1,"b":2}"#)]),
        AssistantMessage {
            text: Some("3".into()),
            tool_calls: vec![],
        },
    ])
}

/// A registry of `add` alone.
pub fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).unwrap();
    registry
}
