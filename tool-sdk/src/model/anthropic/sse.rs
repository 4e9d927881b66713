//! Reading a streamed Messages answer: text as it comes, and each tool call handed out as soon
//! as its block stops.

use std::collections::BTreeMap;

use crate::model::anthropic::api::USAGE;
use crate::model::anthropic::api::{AnswerBlock, BlockDelta, StreamEvent};
use crate::model::anthropic::convert::{self, decode};
use crate::model::http::{no_name, Assemble, Budget, Event, StreamedUsage};
use crate::model::{ChatDelta, ModelError, ToolCall};

/// A `tool_use` block whose input is still arriving.
#[derive(Debug)]
struct PartialCall {
    id: String,
    name: String,
    /// The input given with the block's start (`{}` when it comes in deltas).
    initial: String,
    /// The input's JSON text, from the deltas.
    input: String,
}

/// Builds the reply from events: text deltas as they come, each call when its block stops.
#[derive(Debug, Default)]
pub struct Assembler {
    /// The `tool_use` blocks begun and not stopped, by index.
    calls: BTreeMap<usize, PartialCall>,
    /// A `message_delta` said why the reply ends.
    stopping: bool,
    /// Bytes of text and input read so far.
    budget: Budget,
    /// The tokens reported by `message_start` and `message_delta`.
    usage: StreamedUsage,
}

impl Assemble for Assembler {
    /// Reads one event; `Ok(true)` at `message_stop`.
    fn event(&mut self, event: &Event, out: &mut Vec<ChatDelta>) -> Result<bool, ModelError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(false);
        }
        let event: StreamEvent = decode(data.as_bytes(), "an event of the streamed answer")?;
        match event {
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => match content_block {
                AnswerBlock::Text { text } => self.text(text, out)?,
                AnswerBlock::ToolUse { id, name, input } => {
                    if name.is_empty() {
                        return Err(no_name(convert::CALL, index));
                    }
                    let initial = match &input {
                        serde_json::Value::Object(map) if map.is_empty() => String::new(),
                        serde_json::Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    self.budget.spend(id.len() + name.len() + initial.len())?;
                    self.calls.insert(
                        index,
                        PartialCall {
                            id,
                            name,
                            initial,
                            input: String::new(),
                        },
                    );
                }
                AnswerBlock::Other => {}
            },
            StreamEvent::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } => self.text(text, out)?,
                BlockDelta::InputJsonDelta { partial_json } => {
                    self.budget.spend(partial_json.len())?;
                    match self.calls.get_mut(&index) {
                        Some(call) => call.input.push_str(&partial_json),
                        None => {
                            return Err(ModelError::Malformed(format!(
                                "input for block {index}, which is no tool_use begun"
                            )))
                        }
                    }
                }
                BlockDelta::Other => {}
            },
            StreamEvent::ContentBlockStop { index } => {
                if let Some(call) = self.calls.remove(&index) {
                    out.push(ChatDelta::ToolCall(finish(call)));
                }
            }
            StreamEvent::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    self.stopping = true;
                }
                self.usage.read(usage.as_ref());
            }
            StreamEvent::MessageStop => {
                if let Some((index, _)) = self.calls.first_key_value() {
                    return Err(ModelError::Malformed(format!(
                        "the answer ended with the tool_use block {index} not stopped"
                    )));
                }
                self.usage.report(USAGE, out);
                return Ok(true);
            }
            StreamEvent::Error { error } => {
                let message = if error.message.is_empty() {
                    error.kind
                } else {
                    error.message
                };
                return Err(ModelError::Unavailable(format!(
                    "the provider reported an error mid-stream: {message}"
                )));
            }
            StreamEvent::MessageStart { message } => self.usage.read(message.usage.as_ref()),
            StreamEvent::Ping | StreamEvent::Other => {}
        }
        Ok(false)
    }

    /// The stream ended without `message_stop`: the answer was cut off, and a call whose block
    /// did not stop is not handed out (its input may be cut too).
    fn end(&mut self, _: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
        let state = if self.stopping {
            "after its stop reason, without message_stop"
        } else {
            "before the answer was complete"
        };
        Err(ModelError::Unavailable(format!("the stream ended {state}")))
    }
}

impl Assembler {
    fn text(&mut self, text: String, out: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
        if !text.is_empty() {
            self.budget.spend(text.len())?;
            out.push(ChatDelta::Text(text));
        }
        Ok(())
    }
}

/// A call whose block stopped: its input from the deltas, else from the block's start, else
/// `{}`.
fn finish(call: PartialCall) -> ToolCall {
    let arguments = if !call.input.trim().is_empty() {
        call.input
    } else if !call.initial.is_empty() {
        call.initial
    } else {
        "{}".to_owned()
    };
    ToolCall {
        id: Some(call.id).filter(|id| !id.is_empty()),
        name: call.name,
        arguments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;

    fn event(kind: &str, data: &str) -> String {
        format!("event: {kind}\ndata: {data}\n\n")
    }

    fn parse(text: &str) -> (Vec<ChatDelta>, Result<(), ModelError>) {
        crate::model::http::parse_bytewise::<Assembler>(text)
    }

    fn stream_of_two_calls() -> String {
        [
            event("message_start", r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":5,"output_tokens":1}}}"#),
            event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            event("ping", r#"{"type":"ping"}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking"}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" both."}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            event("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": "}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Lisbon\"}"}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
            event("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_b","name":"ping","input":{}}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":2}"#),
            event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}"#),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ]
        .concat()
    }

    #[test]
    fn text_streams_and_each_call_is_whole_when_its_block_stops() {
        let mut parser = crate::model::http::SseParser::<Assembler>::default();
        let mut out = Vec::new();
        let text = stream_of_two_calls();
        // Up to the first call's stop, the first call is out and the second is not begun.
        let first_stop = text.find(r#""index":1}"#).unwrap() + 12;
        parser
            .push(&text.as_bytes()[..first_stop], &mut out)
            .unwrap();
        assert_eq!(
            out.last(),
            Some(&ChatDelta::ToolCall(ToolCall::new(
                "toolu_a",
                "get_weather",
                r#"{"city": "Lisbon"}"#
            )))
        );
        assert!(parser
            .push(&text.as_bytes()[first_stop..], &mut out)
            .unwrap());
        assert_eq!(
            out,
            [
                ChatDelta::Text("Checking".into()),
                ChatDelta::Text(" both.".into()),
                ChatDelta::ToolCall(ToolCall::new(
                    "toolu_a",
                    "get_weather",
                    r#"{"city": "Lisbon"}"#
                )),
                ChatDelta::ToolCall(ToolCall::new("toolu_b", "ping", "{}")),
                // The input (with the cache) from `message_start`, the output as
                // `message_delta` last counted it: once, when the answer is complete.
                ChatDelta::Usage(Usage::new(30, 9)),
            ]
        );
        let (bytewise, end) = parse(&text);
        assert_eq!((bytewise, end), (out, Ok(())));
    }

    #[test]
    fn an_error_event_and_a_cut_stream_are_errors_and_a_cut_call_never_comes_out() {
        let error = [
            event("message_start", r#"{"type":"message_start","message":{}}"#),
            event(
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ),
        ]
        .concat();
        let (_, end) = parse(&error);
        assert!(
            matches!(&end, Err(ModelError::Unavailable(m)) if m.contains("Overloaded")),
            "{end:?}"
        );

        let cut = [
            event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"pay","input":{}}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"amount\": 10"}}"#),
        ]
        .concat();
        let (out, end) = parse(&cut);
        assert!(out.is_empty(), "{out:?}");
        assert!(matches!(end, Err(ModelError::Unavailable(_))));
    }

    #[test]
    fn events_it_does_not_know_are_passed_over() {
        let text = [
            event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            event("some_future_event", r#"{"type":"some_future_event"}"#),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ]
        .concat();
        assert_eq!(parse(&text), (vec![], Ok(())));
    }
}
