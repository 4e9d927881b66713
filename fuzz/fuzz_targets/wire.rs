//! Checks that provider answers can't panic or hang the models' readers, and that what they
//! read can always be sent back. Every input is read as each provider's whole answer and as its
//! streamed answer (in two pieces, split where the first byte says). Each reply read is written
//! back into a conversation, with a result for each call, as each provider's request. The same
//! bytes, as a JSON value, are lowered as a tool schema to every `Dialect`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::model::fuzzing::{read_answers, read_streams, requests};
use tool_sdk::model::{ChatDelta, ToolResultMessage, ToolResultStatus};
use tool_sdk::{AssistantMessage, Message};

/// The conversation after `reply`, its calls answered.
fn answered(reply: AssistantMessage) -> Vec<Message> {
    let mut conversation = vec![Message::user("fuzz"), Message::Assistant(reply.clone())];
    for (position, call) in reply.tool_calls.iter().enumerate() {
        serde_json::to_string(call).expect("a tool call serializes");
        conversation.push(Message::Tool(ToolResultMessage {
            call_id: call.id.clone(),
            key: call.id.clone().unwrap_or_else(|| format!("#{position}")),
            name: call.name.clone(),
            content: call.arguments.clone(),
            parts: Vec::new(),
            status: ToolResultStatus::Success,
        }));
    }
    conversation
}

fuzz_target!(|data: &[u8]| {
    for reply in read_answers(data).into_iter().flatten() {
        for body in requests(&answered(reply)) {
            serde_json::from_str::<Value>(&body).expect("a request body is JSON");
        }
    }
    let split = data.first().map_or(0, |byte| usize::from(*byte));
    for deltas in read_streams(data, split).into_iter().flatten() {
        let mut reply = AssistantMessage::default();
        for delta in deltas {
            match delta {
                ChatDelta::Text(text) => reply.text.get_or_insert_with(String::new).push_str(&text),
                ChatDelta::ToolCall(call) => reply.tool_calls.push(call),
                _ => {}
            }
        }
        requests(&answered(reply));
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
