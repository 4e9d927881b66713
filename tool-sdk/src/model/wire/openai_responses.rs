//! OpenAI Responses: flat `tools[]`, `function_call` output items and `function_call_output`
//! input items.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::define::ToolDefinition;
use crate::describe::{lower, Dialect, LoweringError};
use crate::model::{ToolCall, ToolResultMessage};

/// An entry of `tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
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

/// A `function_call` item of a response's `output`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCallItem {
    /// Always `"function_call"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The item's own id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The id a `function_call_output` answers.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
    /// `completed`, `in_progress`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A `function_call_output` input item answering one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCallOutputItem {
    /// Always `"function_call_output"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The id of the call it answers.
    pub call_id: String,
    /// The result.
    pub output: String,
}

impl Tool {
    /// The definition as the Responses API wants it; `strict` lowers to OpenAI strict mode.
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
            name: definition.name.clone(),
            description: Some(definition.description.clone()),
            parameters: Some(lower(&definition.name, &definition.parameters, dialect)?),
            strict: Some(strict),
        })
    }
}

impl From<FunctionCallItem> for ToolCall {
    fn from(item: FunctionCallItem) -> Self {
        ToolCall {
            id: Some(item.call_id),
            name: item.name,
            arguments: item.arguments,
        }
    }
}

impl FunctionCallOutputItem {
    /// The result as an input item; a call without an id is answered under `fallback_id`.
    pub fn from_result(result: &ToolResultMessage, fallback_id: &str) -> Self {
        Self {
            kind: "function_call_output".into(),
            call_id: result
                .call_id
                .clone()
                .unwrap_or_else(|| fallback_id.to_owned()),
            output: result.content.clone(),
        }
    }
}
