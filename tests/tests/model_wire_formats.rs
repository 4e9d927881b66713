//! Provider wire formats: samples in the shapes the providers' API references show round-trip
//! through our serde types, convert to our calls, and our definitions lower into them.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use tool_sdk::describe::Dialect;
use tool_sdk::model::wire::{anthropic, gemini, openai_chat, openai_responses};
use tool_sdk::{
    model::{ToolResultMessage, ToolResultStatus},
    tool, Tool, ToolCall,
};

fn sample(name: &str) -> Value {
    let path = format!("{}/samples/wire/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Decodes `value` as `T` and encodes it again: nothing may be lost or added.
fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> T {
    let typed: T = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(&serde_json::to_value(&typed).unwrap(), value);
    typed
}

/// Gets the weather.
#[tool]
fn get_weather(
    /// The city.
    location: String,
    days: Option<u8>,
) -> String {
    format!("{location} {days:?}")
}

fn result(content: &str, status: ToolResultStatus) -> ToolResultMessage {
    ToolResultMessage {
        call_id: Some("call_1".into()),
        key: "call_1".into(),
        name: "get_weather".into(),
        content: content.into(),
        parts: Vec::new(),
        status,
    }
}

#[test]
fn openai_chat_completions() {
    let sample = sample("openai_chat");
    let _: Vec<openai_chat::Tool> = round_trip(&sample["tools"]);
    let calls: Vec<openai_chat::ToolCallPart> = round_trip(&sample["tool_calls"]);
    let _: openai_chat::RequestMessage = round_trip(&sample["tool_message"]);
    let call = ToolCall::from(calls[0].clone());
    assert_eq!(
        call,
        ToolCall::new(
            "call_12345xyz",
            "get_weather",
            r#"{"location":"Paris, France"}"#
        )
    );
    assert_eq!(
        openai_chat::ToolCallPart::from_call(&call, "unused"),
        calls[0]
    );

    let ours = openai_chat::Tool::from_definition(GetWeatherTool.definition(), true).unwrap();
    let ours = serde_json::to_value(ours).unwrap();
    assert_eq!(ours["function"]["strict"], true);
    assert_eq!(
        ours["function"]["parameters"]["required"],
        json!(["location", "days"])
    );
    let answered = result("14", ToolResultStatus::Success);
    let message = openai_chat::RequestMessage::from_result(&answered, "x");
    assert_eq!(
        serde_json::to_value(message).unwrap(),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "14"})
    );
}

#[test]
fn openai_responses() {
    let sample = sample("openai_responses");
    let _: Vec<openai_responses::Tool> = round_trip(&sample["tools"]);
    let output: Vec<openai_responses::FunctionCallItem> = round_trip(&sample["output"]);
    let _: openai_responses::FunctionCallOutputItem = round_trip(&sample["input"]);
    let call = ToolCall::from(output[0].clone());
    assert_eq!(
        call.id.as_deref(),
        Some("call_12345xyz"),
        "answers name the call_id, not the item id"
    );
    let ours = openai_responses::Tool::from_definition(GetWeatherTool.definition(), false).unwrap();
    assert_eq!(
        ours.parameters.as_ref(),
        Some(&GetWeatherTool.definition().parameters)
    );
}

#[test]
fn anthropic_messages() {
    let sample = sample("anthropic");
    let _: Vec<anthropic::Tool> = round_trip(&sample["tools"]);
    let anthropic::ContentBlock::ToolUse(tool_use) = round_trip(&sample["tool_use"]) else {
        panic!("a tool_use block");
    };
    let _: anthropic::ContentBlock = round_trip(&sample["tool_result"]);
    let _: anthropic::ContentBlock = round_trip(&sample["tool_result_blocks"]);
    let call = ToolCall::from(tool_use);
    assert_eq!(
        serde_json::from_str::<Value>(&call.arguments).unwrap(),
        json!({"location": "San Francisco, CA"})
    );
    let error = result("Error: no station", ToolResultStatus::Error);
    let failed = anthropic::ToolResult::from_result(&error, "x");
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(
        serde_json::to_value(anthropic::ContentBlock::ToolResult(failed)).unwrap(),
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": "Error: no station", "is_error": true})
    );
    let strict = anthropic::Tool::from_definition(GetWeatherTool.definition(), true).unwrap();
    assert_eq!(strict.input_schema["additionalProperties"], false);
    assert!(
        strict.input_schema["properties"]["days"]
            .get("maximum")
            .is_none(),
        "no bounds in strict mode"
    );
}

#[test]
fn gemini() {
    let sample = sample("gemini");
    let _: Vec<gemini::Tool> = round_trip(&sample["tools"]);
    let part: gemini::FunctionCallPart = round_trip(&sample["function_call"]);
    let _: gemini::FunctionResponsePart = round_trip(&sample["function_response"]);
    let call = ToolCall::from(part);
    assert_eq!(call.id, None, "Gemini gives calls no id");
    let declaration =
        gemini::FunctionDeclaration::from_definition(GetWeatherTool.definition(), Dialect::Gemini)
            .unwrap();
    assert!(declaration.parameters_json_schema.is_none());
    let days = &declaration.parameters.as_ref().unwrap()["properties"]["days"];
    assert_eq!(
        (days["type"].as_str(), days["nullable"].as_bool()),
        (Some("integer"), Some(true))
    );
    // With JSON Schema (the `v1beta` API), the schema goes in `parametersJsonSchema` instead,
    // a union with `null` as JSON Schema says it.
    let declaration = gemini::FunctionDeclaration::from_definition(
        GetWeatherTool.definition(),
        Dialect::GeminiJsonSchema,
    )
    .unwrap();
    assert!(declaration.parameters.is_none());
    let days = &declaration.parameters_json_schema.as_ref().unwrap()["properties"]["days"];
    assert_eq!(days["type"], json!(["integer", "null"]));
    let sent = serde_json::to_value(&declaration).unwrap();
    assert!(sent.get("parametersJsonSchema").is_some(), "{sent}");
    let json_result = gemini::FunctionResponsePart::from_result(&result(
        r#"{"temperature":12}"#,
        ToolResultStatus::Success,
    ));
    assert_eq!(
        json_result.function_response.response,
        json!({"temperature": 12})
    );
    let text_result =
        gemini::FunctionResponsePart::from_result(&result("sunny", ToolResultStatus::Success));
    assert_eq!(
        text_result.function_response.response,
        json!({"result": "sunny"})
    );
}
