//! Tool results as MCP `tools/call` results, and back.
//!
//! An output of text or JSON alone is one text block (JSON also `structuredContent`); an
//! output with [`Part`]s is one block per part, in order (see [`content`](super::content)).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use super::content::{block_part, part_block};
use super::structured::{Wrapping, STRUCTURED_RESULT_KEY};
use crate::define::{parts_text, Part, ToolOutput, ToolResult};

/// A call's outcome as the client sees it. Output is a text block, or a block per part; JSON
/// output, or an output with exactly one JSON part, is also `structuredContent`. A classified
/// error is an `isError` result carrying [`ToolError::model_message`], so the model reading
/// it can correct itself.
///
/// [`ToolError::model_message`]: crate::define::ToolError::model_message
pub(crate) fn to_call_result(result: ToolResult, wrapping: Wrapping) -> CallToolResult {
    match result {
        Ok(output) => success(output, wrapping),
        Err(error) => refusal(error.model_message()),
    }
}

/// An `isError` result with one text block.
pub(crate) fn refusal(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

fn success(output: ToolOutput, wrapping: Wrapping) -> CallToolResult {
    let structured = output.structured().map(|value| wrapping.content(value));
    let (content, parts) = output.into_content_and_parts();
    let blocks = if parts.is_empty() {
        vec![ContentBlock::text(content)]
    } else {
        parts.into_iter().map(part_block).collect()
    };
    let mut result = CallToolResult::success(blocks);
    result.structured_content = structured;
    result
}

/// What a server's `tools/call` result becomes for the model: its output, or the server's
/// error message (which the tool's handler turns into an execution failure).
///
/// A result of text alone is text (or JSON, below) as it always was; one with images, audio
/// or files keeps them as parts, in order.
pub(crate) fn from_call_result(result: CallToolResult) -> Result<ToolOutput, String> {
    let CallToolResult {
        content,
        structured_content,
        is_error,
        ..
    } = result;
    let parts: Vec<Part> = content.into_iter().map(block_part).collect();
    if is_error == Some(true) {
        let text = parts_text(&parts);
        // The failure's own model message starts with "Error: " again; one is enough (a
        // tool-sdk server words its errors that way).
        let message = text.strip_prefix("Error: ").unwrap_or(&text).trim();
        if message.is_empty() {
            return Err("the MCP server reported an error without a message".to_owned());
        }
        return Err(message.to_owned());
    }
    let output = if parts.iter().all(|part| matches!(part, Part::Text { .. })) {
        text_output(parts_text(&parts), structured_content.clone())
    } else {
        ToolOutput::from_parts(mark_structured(parts, structured_content.clone()))
    };
    // The structured form is kept as the server sent it, for hooks, events and the output
    // schema the server listed.
    // (When the output's own JSON says the same, nothing needs keeping.)
    Ok(match structured_content {
        Some(structured) if output.structured().as_ref() != Some(&structured) => {
            output.with_structured(structured)
        }
        _ => output,
    })
}

/// The text is the result as the tool wrote it: servers repeat structured content there (a
/// wrapped `{"result": 2}` reads `2`; a wrapped string reads as the string). The structured
/// form stands in only when there is no text.
fn text_output(text: String, structured: Option<Value>) -> ToolOutput {
    match structured {
        Some(_) if serde_json::from_str::<Value>(&text).is_ok() => ToolOutput::json(text),
        Some(structured) if text.is_empty() => ToolOutput::json(structured.to_string()),
        _ => ToolOutput::text(text),
    }
}

/// Among parts with media, the text block that repeats `structured` (as it is, or wrapped) is
/// the output's JSON part; with no text at all, the structured form is, first.
fn mark_structured(mut parts: Vec<Part>, structured: Option<Value>) -> Vec<Part> {
    let Some(structured) = structured else {
        return parts;
    };
    let repeats = parts.iter().position(|part| match part {
        Part::Text { text } => repeats_structured(text, &structured),
        _ => false,
    });
    let has_text = parts.iter().any(|part| matches!(part, Part::Text { .. }));
    match repeats.and_then(|index| parts.get_mut(index)) {
        Some(part) => {
            if let Part::Text { text } = part {
                *part = Part::json(std::mem::take(text));
            }
        }
        None if !has_text => {
            parts.insert(0, Part::json(structured.to_string()));
        }
        None => {}
    }
    parts
}

fn repeats_structured(text: &str, structured: &Value) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let wrapped = structured
        .as_object()
        .filter(|object| object.len() == 1)
        .and_then(|object| object.get(STRUCTURED_RESULT_KEY));
    &value == structured || wrapped == Some(&value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::define::{Media, ToolError};

    /// A chart, its data and the report it comes from.
    fn chart_parts() -> Vec<Part> {
        vec![
            Part::text("Sales by month:"),
            Part::image("image/png", [0x89, b'P', b'N', b'G']),
            Part::json(r#"{"march":3}"#),
            Part::file("application/pdf", "q1 report.pdf", b"%PDF-1.7"),
            Part::File(Media::from_bytes("audio/ogg", [1, 2])),
        ]
    }

    #[test]
    fn parts_are_served_as_one_block_each_in_order() {
        let result = to_call_result(Ok(ToolOutput::from_parts(chart_parts())), Wrapping::ByValue);
        assert_eq!(result.is_error, Some(false));
        let wire = serde_json::to_value(&result.content).expect("serializable");
        let kinds: Vec<&str> = (0..5).filter_map(|i| wire[i]["type"].as_str()).collect();
        assert_eq!(kinds, ["text", "image", "text", "resource", "audio"]);
        assert_eq!(wire[1]["data"], "iVBORw==");
        assert_eq!(wire[1]["mimeType"], "image/png");
        assert_eq!(wire[2]["text"], r#"{"march":3}"#);
        assert_eq!(
            wire[3]["resource"]["uri"],
            "tool-sdk://files/q1%20report.pdf"
        );
        assert_eq!(wire[3]["resource"]["blob"], "JVBERi0xLjc=");
        // The one JSON part is the structured form too.
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"march": 3}))
        );
    }

    #[test]
    fn served_parts_come_back_as_the_same_parts() {
        let served = ToolOutput::from_parts(chart_parts());
        let back = from_call_result(to_call_result(Ok(served.clone()), Wrapping::ByValue)).unwrap();
        assert_eq!(back, served);
        assert_eq!(back.parts(), chart_parts());

        // A JSON part that is not an object is wrapped, and found again.
        let parts = vec![Part::json("[1,2]"), Part::image("image/gif", [7])];
        let result = to_call_result(Ok(ToolOutput::from_parts(parts.clone())), Wrapping::ByValue);
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"result": [1, 2]}))
        );
        assert_eq!(from_call_result(result).unwrap().parts(), parts);
    }

    #[test]
    fn several_json_parts_have_no_structured_form() {
        let parts = [
            Part::json("1"),
            Part::json("2"),
            Part::image("image/png", [1]),
        ];
        let result = to_call_result(Ok(ToolOutput::from_parts(parts)), Wrapping::ByValue);
        assert_eq!(result.structured_content, None);
        let back = from_call_result(result).unwrap();
        assert_eq!(back.parts()[..2], [Part::text("1"), Part::text("2")]);
    }

    #[test]
    fn text_alone_is_served_as_before() {
        let result = to_call_result(Ok(ToolOutput::text("3 rooms free")), Wrapping::ByValue);
        let wire = serde_json::to_value(&result).expect("serializable");
        assert_eq!(
            wire["content"],
            serde_json::json!([{"type": "text", "text": "3 rooms free"}])
        );
        assert_eq!(wire.get("structuredContent"), None);
    }

    #[test]
    fn a_servers_media_is_kept_and_its_structured_form_stands_in_for_missing_text() {
        let mut result = CallToolResult::success(vec![ContentBlock::image("AQID", "image/png")]);
        result.structured_content = Some(serde_json::json!({"width": 1}));
        let output = from_call_result(result).unwrap();
        assert_eq!(
            output.parts(),
            [
                Part::json(r#"{"width":1}"#),
                Part::image("image/png", [1, 2, 3])
            ]
        );
        assert_eq!(output.content(), "{\"width\":1}\n[image (image/png)]");

        // Text that does not repeat the structured form stays text, and the form is left out.
        let mut result = CallToolResult::success(vec![
            ContentBlock::text("a chart"),
            ContentBlock::image("AQID", "image/png"),
        ]);
        result.structured_content = Some(serde_json::json!({"width": 1}));
        let output = from_call_result(result).unwrap();
        assert_eq!(output.parts()[0], Part::text("a chart"));
    }

    #[test]
    fn several_text_blocks_are_one_text_as_before() {
        let result = CallToolResult::success(vec![
            ContentBlock::text("a"),
            ContentBlock::embedded_text("file:///b.md", "b"),
        ]);
        let output = from_call_result(result).unwrap();
        assert_eq!(output, ToolOutput::text("a\nb"));
    }

    #[test]
    fn media_that_is_not_base64_is_said_not_dropped() {
        let result = CallToolResult::success(vec![
            ContentBlock::text("the chart:"),
            ContentBlock::image("%%%", "image/png"),
        ]);
        let output = from_call_result(result).unwrap();
        assert!(output.parts().is_empty(), "text only: {output:?}");
        assert!(
            output
                .content()
                .starts_with("the chart:\n[image (image/png) left out"),
            "{}",
            output.content()
        );
    }

    #[test]
    fn an_error_with_media_names_it_in_its_message() {
        let result = CallToolResult::error(vec![
            ContentBlock::text("render failed; last frame:"),
            ContentBlock::image("AQID", "image/png"),
        ]);
        assert_eq!(
            from_call_result(result).unwrap_err(),
            "render failed; last frame:\n[image (image/png)]"
        );
    }

    #[test]
    fn json_object_is_structured_as_it_is() {
        let result = to_call_result(Ok(ToolOutput::json(r#"{"a":1}"#.into())), Wrapping::ByValue);
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.structured_content, Some(serde_json::json!({"a": 1})));
    }

    #[test]
    fn json_that_is_not_an_object_is_wrapped() {
        let result = to_call_result(Ok(ToolOutput::json("[1,2]".into())), Wrapping::ByValue);
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"result": [1, 2]}))
        );
    }

    #[test]
    fn text_is_not_structured() {
        let result = to_call_result(
            Ok(ToolOutput::text("{\"looks\": \"like json\"}")),
            Wrapping::ByValue,
        );
        assert_eq!(result.structured_content, None);
    }

    #[test]
    fn errors_carry_the_model_message() {
        let error = ToolError::failed("t", "no seats left");
        let result = to_call_result(Err(error), Wrapping::ByValue);
        assert_eq!(result.is_error, Some(true));
        let text = result.content[0].as_text().map(|text| text.text.as_str());
        assert_eq!(text, Some("Error: no seats left"));
    }

    #[test]
    fn structured_results_come_back_as_their_json_text() {
        let result = to_call_result(Ok(ToolOutput::json("2".into())), Wrapping::ByValue);
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
