//! Tool results as MCP `tools/call` results, and back.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::define::{ToolOutput, ToolResult};

/// The key a JSON result that is not an object is wrapped under in `structuredContent`, which
/// MCP wants to be an object (the convention of the Python SDK's FastMCP).
pub const STRUCTURED_RESULT_KEY: &str = "result";

/// A call's outcome as the client sees it. Output is a text block; JSON output is also
/// `structuredContent`. A classified error is an `isError` result carrying
/// [`ToolError::model_message`], so the model reading it can correct itself.
pub(crate) fn to_call_result(result: ToolResult) -> CallToolResult {
    match result {
        Ok(output) => success(output),
        Err(error) => refusal(error.model_message()),
    }
}

/// An `isError` result with one text block.
pub(crate) fn refusal(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

fn success(output: ToolOutput) -> CallToolResult {
    let structured = output
        .is_json()
        .then(|| serde_json::from_str::<Value>(output.content()).ok())
        .flatten()
        .map(|value| match value {
            Value::Object(_) => value,
            other => serde_json::json!({ STRUCTURED_RESULT_KEY: other }),
        });
    let mut result = CallToolResult::success(vec![ContentBlock::text(output.into_content())]);
    result.structured_content = structured;
    result
}

/// What a server's `tools/call` result becomes for the model: its output, or the server's
/// error message (which the tool's handler turns into an execution failure).
pub(crate) fn from_call_result(result: CallToolResult) -> Result<ToolOutput, String> {
    let text = content_text(&result.content);
    if result.is_error == Some(true) {
        // The failure's own model message starts with "Error: " again; one is enough (a
        // tool-sdk server words its errors that way).
        let message = text.strip_prefix("Error: ").unwrap_or(&text).trim();
        if message.is_empty() {
            return Err("the MCP server reported an error without a message".to_owned());
        }
        return Err(message.to_owned());
    }
    // The text is the result as the tool wrote it: servers repeat structured content there
    // (a wrapped `{"result": 2}` reads `2`; a wrapped string reads as the string). The
    // structured form stands in only when there is no text.
    match result.structured_content {
        Some(_) if serde_json::from_str::<Value>(&text).is_ok() => Ok(ToolOutput::json(text)),
        Some(structured) if text.is_empty() => Ok(ToolOutput::json(structured.to_string())),
        _ => Ok(ToolOutput::text(text)),
    }
}

/// The text blocks joined by new lines; other blocks (images, audio, resources) are named,
/// since the model reads text only.
fn content_text(content: &[ContentBlock]) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!("[image ({}) not shown]", image.mime_type),
            ContentBlock::Audio(audio) => format!("[audio ({}) not shown]", audio.mime_type),
            ContentBlock::Resource(_) => "[embedded resource not shown]".to_owned(),
            ContentBlock::ResourceLink(link) => format!("[resource {}]", link.uri),
            _ => "[content not shown]".to_owned(),
        })
        .collect();
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::define::ToolError;

    #[test]
    fn json_object_is_structured_as_it_is() {
        let result = to_call_result(Ok(ToolOutput::json(r#"{"a":1}"#.into())));
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.structured_content, Some(serde_json::json!({"a": 1})));
    }

    #[test]
    fn json_that_is_not_an_object_is_wrapped() {
        let result = to_call_result(Ok(ToolOutput::json("[1,2]".into())));
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"result": [1, 2]}))
        );
    }

    #[test]
    fn text_is_not_structured() {
        let result = to_call_result(Ok(ToolOutput::text("{\"looks\": \"like json\"}")));
        assert_eq!(result.structured_content, None);
    }

    #[test]
    fn errors_carry_the_model_message() {
        let error = ToolError::failed("t", "no seats left");
        let result = to_call_result(Err(error));
        assert_eq!(result.is_error, Some(true));
        assert_eq!(content_text(&result.content), "Error: no seats left");
    }

    #[test]
    fn structured_results_come_back_as_their_json_text() {
        let result = to_call_result(Ok(ToolOutput::json("2".into())));
        let output = from_call_result(result).unwrap();
        assert!(output.is_json());
        assert_eq!(output.content(), "2");

        let mut result = CallToolResult::success(vec![ContentBlock::text("two")]);
        result.structured_content = Some(serde_json::json!({"result": "two"}));
        assert_eq!(from_call_result(result).unwrap().content(), "two");

        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(serde_json::json!({"n": 2}));
        let output = from_call_result(result).unwrap();
        assert!(output.is_json());
        assert_eq!(output.content(), r#"{"n":2}"#);

        let plain = from_call_result(CallToolResult::success(vec![ContentBlock::text("hi")]));
        assert!(!plain.as_ref().unwrap().is_json());
    }

    #[test]
    fn server_errors_become_execution_failures() {
        let result = refusal("disk full".into());
        assert_eq!(from_call_result(result).unwrap_err(), "disk full");
        let result = refusal("Error: disk full".into());
        assert_eq!(from_call_result(result).unwrap_err(), "disk full");
        let result = refusal(String::new());
        assert!(from_call_result(result)
            .unwrap_err()
            .contains("without a message"));
    }
}
