//! OpenAI Chat Completions: `tools[]`, `message.tool_calls[]`, and `role: "tool"` messages.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::define::ToolDefinition;
use crate::describe::{lower, Dialect, LoweringError};
use crate::model::{ToolCall, ToolResultMessage};

/// An entry of `tools`: `{"type": "function", "function": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function.
    pub function: Function,
}

/// The function of a [`Tool`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Structured Outputs for the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// An entry of an assistant message's `tool_calls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallPart {
    /// The call's id.
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function called.
    pub function: FunctionCall,
}

/// The function of a [`ToolCallPart`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
}

/// A `role: "tool"` message answering one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolMessage {
    /// Always `"tool"`.
    pub role: String,
    /// The id of the call it answers.
    pub tool_call_id: String,
    /// The result.
    pub content: String,
}

impl Tool {
    /// The definition as Chat Completions wants it; `strict` lowers to OpenAI strict mode.
    pub fn from_definition(
        definition: &ToolDefinition,
        strict: bool,
    ) -> Result<Self, LoweringError> {
        let dialect = if strict {
            Dialect::OpenAiStrict
        } else {
            Dialect::OpenAi
        };
        Ok(Self {
            kind: "function".into(),
            function: Function {
                name: definition.name.clone(),
                description: Some(definition.description.clone()),
                parameters: Some(lower(&definition.name, &definition.parameters, dialect)?),
                strict: strict.then_some(true),
            },
        })
    }
}

impl From<ToolCallPart> for ToolCall {
    fn from(part: ToolCallPart) -> Self {
        ToolCall {
            id: Some(part.id),
            name: part.function.name,
            arguments: part.function.arguments,
        }
    }
}

impl ToolCallPart {
    /// The call as Chat Completions writes it; a call without an id gets `fallback_id`.
    pub fn from_call(call: &ToolCall, fallback_id: &str) -> Self {
        Self {
            id: call.id.clone().unwrap_or_else(|| fallback_id.to_owned()),
            kind: "function".into(),
            function: FunctionCall {
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        }
    }
}

impl ToolMessage {
    /// The result as a tool message; a call without an id is answered under `fallback_id`.
    pub fn from_result(result: &ToolResultMessage, fallback_id: &str) -> Self {
        Self {
            role: "tool".into(),
            tool_call_id: result
                .call_id
                .clone()
                .unwrap_or_else(|| fallback_id.to_owned()),
            content: result.content.clone(),
        }
    }
}
