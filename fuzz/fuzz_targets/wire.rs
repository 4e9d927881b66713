//! Checks that provider payloads can't panic or hang the wire and schema code. Every input is
//! parsed as each provider's wire types (OpenAI Chat and Responses, Anthropic, Gemini). When a
//! call parses, it is converted to a `ToolCall` (its name, id and arguments must carry over) and
//! both are serialized again. The same bytes, as a JSON value, are lowered as a tool schema to
//! every `Dialect`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tool_sdk::describe::{Dialect, lower};
use tool_sdk::model::wire::{anthropic, gemini, openai_chat, openai_responses};
use tool_sdk::ToolCall;

/// Parses `data` as `T` and serializes it again; `None` when it does not parse.
fn reparse<T: DeserializeOwned + Serialize>(data: &[u8]) -> Option<T> {
    let value: T = serde_json::from_slice(data).ok()?;
    serde_json::to_string(&value).expect("a parsed wire value serializes");
    Some(value)
}

/// Serializes the call, and checks its arguments are JSON text when they came from a JSON value.
fn check_call(call: &ToolCall, arguments_from_value: bool) {
    serde_json::to_string(call).expect("a tool call serializes");
    if arguments_from_value {
        serde_json::from_str::<Value>(&call.arguments).expect("arguments from a value are JSON");
    }
}

fuzz_target!(|data: &[u8]| {
    // OpenAI Chat Completions: what the client sends and what it reads.
    reparse::<openai_chat::Request>(data);
    reparse::<openai_chat::Completion>(data);
    reparse::<openai_chat::Chunk>(data);
    reparse::<openai_chat::Tool>(data);
    reparse::<openai_chat::RequestMessage>(data);
    if let Some(part) = reparse::<openai_chat::ToolCallPart>(data) {
        let call = ToolCall::from(part.clone());
        assert_eq!(call.id.as_deref(), Some(part.id.as_ref()));
        check_call(&call, false);
        // Chat Completions round trip: the call written back is the part it came from.
        let back = openai_chat::ToolCallPart::from_call(&call, "fallback");
        assert_eq!(back.function, part.function);
        assert_eq!(back.id, part.id);
    }

    // OpenAI Responses.
    reparse::<openai_responses::Tool>(data);
    reparse::<openai_responses::FunctionCallOutputItem>(data);
    if let Some(item) = reparse::<openai_responses::FunctionCallItem>(data) {
        let call = ToolCall::from(item.clone());
        assert_eq!(call.id.as_deref(), Some(item.call_id.as_str()));
        assert_eq!(
            (call.name.as_str(), call.arguments.as_str()),
            (item.name.as_str(), item.arguments.as_str())
        );
        check_call(&call, false);
    }

    // Anthropic Messages: what the client sends and what it reads.
    reparse::<anthropic::Request>(data);
    reparse::<anthropic::Answer>(data);
    reparse::<anthropic::StreamEvent>(data);
    reparse::<anthropic::Tool>(data);
    if let Some(anthropic::ContentBlock::ToolUse(block)) = reparse::<anthropic::ContentBlock>(data)
    {
        let call = ToolCall::from(block.clone());
        assert_eq!(call.name, block.name);
        check_call(&call, true);
    }

    // Gemini: what the client sends and what it reads.
    reparse::<gemini::Request>(data);
    reparse::<gemini::GenerateContentResponse>(data);
    reparse::<gemini::Tool>(data);
    reparse::<gemini::FunctionResponsePart>(data);
    if let Some(part) = reparse::<gemini::FunctionCallPart>(data) {
        let call = ToolCall::from(part.clone());
        assert_eq!(call.id, part.function_call.id);
        check_call(&call, true);
    }

    // Schema lowering of any JSON value, to every dialect.
    if let Ok(schema) = serde_json::from_slice::<Value>(data) {
        for dialect in Dialect::ALL {
            if let Ok(lowered) = lower("fuzz_tool", &schema, dialect) {
                serde_json::to_string(&lowered).expect("a lowered schema serializes");
            }
        }
    }
});
