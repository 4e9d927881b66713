//! OpenAI Responses: flat `tools[]`, `function_call` output items and `function_call_output`
//! input items.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::define::{Part, ToolDefinition};
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
    pub output: Output,
}

/// The `output` of a [`FunctionCallOutputItem`]: text, or parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Output {
    /// Text.
    Text(String),
    /// Text, images and files, in order.
    Parts(Vec<OutputPart>),
}

/// A part of an [`Output`], by its `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputPart {
    /// Text.
    InputText {
        /// The text.
        text: String,
    },
    /// An image, by URL (a `data:` URL for inline content).
    InputImage {
        /// The image's URL.
        image_url: String,
    },
    /// A file given inline.
    InputFile {
        /// The content as a `data:` URL.
        file_data: String,
        /// The file's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
    },
}

impl OutputPart {
    /// `part` as an output part: an image as `input_image`, a file as `input_file`, text and
    /// JSON as `input_text`.
    pub fn from_part(part: &Part) -> Self {
        match part {
            Part::Image(media) => Self::InputImage {
                image_url: media.data_url(),
            },
            Part::File(media) => Self::InputFile {
                file_data: media.data_url(),
                filename: media.name().map(str::to_owned),
            },
            _ => Self::InputText {
                text: part.as_text().unwrap_or_default().to_owned(),
            },
        }
    }
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
    /// The result as an input item; a call without an id is answered under `fallback_id`. A
    /// result of parts goes as parts: the Responses API takes images and files there.
    pub fn from_result(result: &ToolResultMessage, fallback_id: &str) -> Self {
        Self {
            kind: "function_call_output".into(),
            call_id: result
                .call_id
                .clone()
                .unwrap_or_else(|| fallback_id.to_owned()),
            output: if result.parts.is_empty() {
                Output::Text(result.content.clone())
            } else {
                Output::Parts(result.parts.iter().map(OutputPart::from_part).collect())
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_result_of_parts_goes_as_input_parts() {
        let result = crate::model::chart_result("call_1");
        let item = serde_json::to_value(FunctionCallOutputItem::from_result(&result, "")).unwrap();
        assert_eq!(
            item["output"],
            json!([
                {"type": "input_text", "text": "Sales by month:"},
                {"type": "input_image", "image_url": "data:image/png;base64,AQID"},
                {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERg==", "filename": "q3.pdf"},
                {"type": "input_image", "image_url": "data:image/svg+xml;base64,PHN2Zy8+"},
            ])
        );
    }
}
