//! Gemini: `tools[].functionDeclarations[]`, `functionCall` and `functionResponse` parts.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::define::ToolDefinition;
use crate::describe::{lower, Dialect, LoweringError};
use crate::model::{ToolCall, ToolResultMessage};

/// An entry of `tools`: a group of function declarations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The declarations.
    pub function_declarations: Vec<FunctionDeclaration>,
}

/// One function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDeclaration {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments, in Gemini's OpenAPI subset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

/// A part holding a `functionCall`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCallPart {
    /// The call.
    pub function_call: FunctionCall,
}

/// A function call; Gemini often gives no id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The call's id, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments, as a JSON object.
    #[serde(default)]
    pub args: Value,
}

/// A part holding a `functionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponsePart {
    /// The response.
    pub function_response: FunctionResponse,
}

/// The answer to one call, matched by name (and id when the call had one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The call's id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The result, as a JSON object.
    pub response: Value,
}

impl FunctionDeclaration {
    /// The definition as Gemini wants it.
    pub fn from_definition(definition: &ToolDefinition) -> Result<Self, LoweringError> {
        Ok(Self {
            name: definition.name.clone(),
            description: Some(definition.description.clone()),
            parameters: Some(lower(
                &definition.name,
                &definition.parameters,
                Dialect::Gemini,
            )?),
        })
    }
}

impl From<FunctionCallPart> for ToolCall {
    fn from(part: FunctionCallPart) -> Self {
        ToolCall {
            id: part.function_call.id,
            name: part.function_call.name,
            arguments: part.function_call.args.to_string(),
        }
    }
}

impl FunctionResponsePart {
    /// The result as a part: JSON object results as they are, anything else under `result`.
    pub fn from_result(result: &ToolResultMessage) -> Self {
        let response = match serde_json::from_str::<Value>(&result.content) {
            Ok(object @ Value::Object(_)) => object,
            _ => json!({ "result": result.content }),
        };
        Self {
            function_response: FunctionResponse {
                id: result.call_id.clone(),
                name: result.name.clone(),
                response,
            },
        }
    }
}
