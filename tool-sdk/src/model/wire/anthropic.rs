//! Anthropic Messages: `tools[]` with `input_schema`, `tool_use` and `tool_result` blocks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::define::ToolDefinition;
use crate::describe::{lower, Dialect, LoweringError};
use crate::model::{ToolCall, ToolResultMessage, ToolResultStatus};

/// An entry of `tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the input.
    pub input_schema: Value,
    /// Strict tool use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// A `tool_use` content block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// Always `"tool_use"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The call's id (`toolu_...`).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The input, as a JSON object (not text).
    pub input: Value,
}

/// A `tool_result` content block of a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The id of the `tool_use` it answers.
    pub tool_use_id: String,
    /// The result: text, or content blocks.
    pub content: Value,
    /// Whether the result is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl Tool {
    /// The definition as Anthropic wants it; `strict` lowers to its strict subset.
    pub fn from_definition(
        definition: &ToolDefinition,
        strict: bool,
    ) -> Result<Self, LoweringError> {
        let dialect = if strict {
            Dialect::AnthropicStrict
        } else {
            Dialect::Anthropic
        };
        Ok(Self {
            name: definition.name.clone(),
            description: Some(definition.description.clone()),
            input_schema: lower(&definition.name, &definition.parameters, dialect)?,
            strict: strict.then_some(true),
        })
    }
}

impl From<ToolUseBlock> for ToolCall {
    fn from(block: ToolUseBlock) -> Self {
        ToolCall {
            id: Some(block.id),
            name: block.name,
            arguments: block.input.to_string(),
        }
    }
}

impl ToolResultBlock {
    /// The result as a block; a call without an id is answered under `fallback_id`.
    pub fn from_result(result: &ToolResultMessage, fallback_id: &str) -> Self {
        Self {
            kind: "tool_result".into(),
            tool_use_id: result
                .call_id
                .clone()
                .unwrap_or_else(|| fallback_id.to_owned()),
            content: Value::String(result.content.clone()),
            is_error: (result.status != ToolResultStatus::Success).then_some(true),
        }
    }
}
