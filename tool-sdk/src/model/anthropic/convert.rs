//! The Messages mapping: the body sent for a conversation, and the reply read from an
//! answer.

use std::borrow::Cow;

pub(super) use crate::model::anthropic::api::{Answer, Request};
use crate::model::anthropic::api::{
    AnswerBlock, ContentBlock, RequestMessage, Role, Tool, ToolResult, ToolUse,
};
pub(super) use crate::model::http::decode;
use crate::model::http::{self, arguments_object, call_ids, result_id};
use crate::model::{AssistantMessage, ChatRequest, Message, ModelError, ToolCall};

/// What the ids made for calls without a usable one start with.
const CALL_ID_PREFIX: &str = "toolu_tool_sdk";

/// The body of `POST /v1/messages` for `request` to `model`, with `max_tokens` unless the
/// request's options set it; `stream` asks for server-sent events, `strict` marks each tool's
/// schema (already in the Anthropic strict dialect) as strict.
pub(super) fn request<'a>(
    model: &'a str,
    max_tokens: u32,
    request: ChatRequest<'a>,
    stream: bool,
    strict: bool,
) -> Request<'a> {
    let (system, messages) = messages(request.messages);
    Request {
        model: Cow::Borrowed(model),
        max_tokens: request.options.max_tokens.unwrap_or(max_tokens),
        system,
        messages,
        tools: request
            .tools
            .iter()
            .map(|offered| Tool::new(offered.definition, offered.parameters, strict))
            .collect(),
        temperature: request.options.temperature,
        stream,
    }
}

/// The system prompt (every system message, in order) and the turns of a conversation. The
/// results of one reply's calls go back together, in one user turn, as the API wants them;
/// every call gets an id, and its result the same one.
fn messages(conversation: &[Message]) -> (Option<Cow<'_, str>>, Vec<RequestMessage<'_>>) {
    let mut system: Option<Cow<'_, str>> = None;
    let mut out: Vec<RequestMessage<'_>> = Vec::with_capacity(conversation.len());
    let mut calls: Vec<(Option<&str>, Cow<'_, str>)> = Vec::new();
    let mut answered = 0;
    // Whether the last turn written holds tool results, so the next result joins it.
    let mut in_results = false;
    for (index, message) in conversation.iter().enumerate() {
        match message {
            Message::System { content } => {
                system = Some(match system {
                    None => Cow::Borrowed(content.as_str()),
                    Some(before) => Cow::Owned(format!("{before}\n\n{content}")),
                });
            }
            Message::User { content } => {
                in_results = false;
                out.push(RequestMessage {
                    role: Role::User,
                    content: text_block(content).into_iter().collect(),
                });
            }
            Message::Assistant(reply) => {
                in_results = false;
                calls = call_ids(CALL_ID_PREFIX, index, &reply.tool_calls);
                answered = 0;
                let mut content: Vec<ContentBlock<'_>> = reply
                    .text
                    .as_deref()
                    .and_then(text_block)
                    .into_iter()
                    .collect();
                for (call, (_, id)) in reply.tool_calls.iter().zip(&calls) {
                    content.push(ContentBlock::ToolUse(ToolUse {
                        id: id.clone(),
                        name: Cow::Borrowed(&call.name),
                        input: arguments_object(&call.arguments),
                    }));
                }
                // A reply with neither text nor calls says nothing the API can take.
                if !content.is_empty() {
                    out.push(RequestMessage {
                        role: Role::Assistant,
                        content,
                    });
                }
            }
            Message::Tool(result) => {
                let id = result_id(CALL_ID_PREFIX, &calls, answered, result, index);
                answered += 1;
                let block = ContentBlock::ToolResult(ToolResult::answering(result, id));
                match out.last_mut() {
                    Some(turn) if in_results => turn.content.push(block),
                    _ => out.push(RequestMessage {
                        role: Role::User,
                        content: vec![block],
                    }),
                }
                in_results = true;
            }
        }
    }
    (system, out)
}

/// A text block, or none for empty text (which the API refuses).
fn text_block(text: &str) -> Option<ContentBlock<'_>> {
    (!text.is_empty()).then(|| ContentBlock::Text {
        text: Cow::Borrowed(text),
    })
}

/// The reply an answer holds: its text blocks joined, its `tool_use` blocks as calls.
pub(super) fn reply(answer: Answer) -> Result<AssistantMessage, ModelError> {
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    for (position, block) in answer.content.into_iter().enumerate() {
        match block {
            AnswerBlock::Text { text: piece } => {
                text.get_or_insert_with(String::new).push_str(&piece)
            }
            AnswerBlock::ToolUse { id, name, input } => {
                if name.is_empty() {
                    return Err(http::no_name(CALL, position));
                }
                tool_calls.push(ToolCall {
                    id: Some(id).filter(|id| !id.is_empty()),
                    name,
                    arguments: input.to_string(),
                });
            }
            AnswerBlock::Other => {}
        }
    }
    if text.is_none() && tool_calls.is_empty() && answer.stop_reason.as_deref() == Some("refusal") {
        return Err(ModelError::Refused {
            status: 200,
            message: "the model declined to answer (stop_reason: refusal)".into(),
        });
    }
    Ok(AssistantMessage { text, tool_calls })
}

/// What a call is in a Messages answer, for the error of one without a name.
pub(super) const CALL: &str = "tool_use at block";

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::define::ToolDefinition;
    use crate::model::http::error_message;
    use crate::model::{ChatOptions, OfferedTool, ToolResultMessage, ToolResultStatus};

    fn result(
        call_id: Option<&str>,
        key: &str,
        content: &str,
        status: ToolResultStatus,
    ) -> Message {
        Message::Tool(ToolResultMessage {
            call_id: call_id.map(str::to_owned),
            key: key.to_owned(),
            name: "get_weather".to_owned(),
            content: content.to_owned(),
            parts: Vec::new(),
            status,
        })
    }

    fn encode(messages: &[Message], tools: &[&ToolDefinition], options: &ChatOptions) -> Value {
        let offered: Vec<OfferedTool<'_>> =
            tools.iter().map(|d| OfferedTool::canonical(d)).collect();
        let chat = ChatRequest {
            messages,
            tools: &offered,
            options,
        };
        serde_json::to_value(request("claude", 1024, chat, false, false)).unwrap()
    }

    #[test]
    fn a_conversation_maps_to_system_turns_and_blocks() {
        let conversation = [
            Message::system("Be brief."),
            Message::user("Weather in Lisbon and Oslo?"),
            Message::Assistant(AssistantMessage {
                text: Some("Checking.".into()),
                tool_calls: vec![
                    ToolCall::new("toolu_1", "get_weather", r#"{"city":"Lisbon"}"#),
                    ToolCall::without_id("get_weather", r#"{"city":"Oslo"}"#),
                ],
            }),
            result(
                Some("toolu_1"),
                "toolu_1",
                "sunny",
                ToolResultStatus::Success,
            ),
            result(None, "#1", "no station", ToolResultStatus::Error),
            Message::user("Thanks."),
            Message::system("Answer in English."),
        ];
        let tool = ToolDefinition::new(
            "get_weather",
            "Gets the weather.",
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        );
        let body = encode(
            &conversation,
            &[&tool],
            &ChatOptions::new().with_temperature(0.5),
        );
        assert_eq!(
            body,
            json!({
                "model": "claude",
                "max_tokens": 1024,
                "system": "Be brief.\n\nAnswer in English.",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Weather in Lisbon and Oslo?"}]},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Lisbon"}},
                        {"type": "tool_use", "id": "toolu_tool_sdk_2_1", "name": "get_weather", "input": {"city": "Oslo"}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                        {"type": "tool_result", "tool_use_id": "toolu_tool_sdk_2_1", "content": "no station", "is_error": true},
                    ]},
                    {"role": "user", "content": [{"type": "text", "text": "Thanks."}]},
                ],
                "tools": [{
                    "name": "get_weather",
                    "description": "Gets the weather.",
                    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
                }],
                "temperature": 0.5,
            })
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_are_kept_under_a_key_and_max_tokens_follow_the_options() {
        let conversation = [
            Message::user("Go."),
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::new("a", "t", "{not json"),
                ToolCall::new("b", "t", ""),
                ToolCall::new("c", "t", "[1]"),
            ])),
        ];
        let body = encode(&conversation, &[], &ChatOptions::new().with_max_tokens(7));
        assert_eq!(body["max_tokens"], 7);
        let blocks = &body["messages"][1]["content"];
        assert_eq!(
            blocks[0]["input"],
            json!({"unreadable_arguments": "{not json"})
        );
        assert_eq!(blocks[1]["input"], json!({}));
        assert_eq!(blocks[2]["input"], json!({"unreadable_arguments": "[1]"}));
        assert!(body.get("tools").is_none() && body.get("system").is_none());
    }

    #[test]
    fn an_answer_decodes_to_a_reply() {
        let answer: Answer = decode(
            br#"{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                 "content": [
                   {"type": "thinking", "thinking": "...", "signature": "s"},
                   {"type": "text", "text": "Let me check."},
                   {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Lisbon"}},
                   {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {"city": "Oslo"}}
                 ],
                 "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 2}}"#,
            "the answer",
        )
        .unwrap();
        assert_eq!(
            reply(answer).unwrap(),
            AssistantMessage {
                text: Some("Let me check.".into()),
                tool_calls: vec![
                    ToolCall::new("toolu_a", "get_weather", r#"{"city":"Lisbon"}"#),
                    ToolCall::new("toolu_b", "get_weather", r#"{"city":"Oslo"}"#),
                ],
            }
        );
    }

    #[test]
    fn a_refusal_without_content_and_a_nameless_call_are_errors() {
        let refusal: Answer = decode(
            br#"{"content": [], "stop_reason": "refusal"}"#,
            "the answer",
        )
        .unwrap();
        assert!(matches!(reply(refusal), Err(ModelError::Refused { .. })));
        let nameless: Answer = decode(
            br#"{"content": [{"type": "tool_use", "id": "x", "name": "", "input": {}}]}"#,
            "the answer",
        )
        .unwrap();
        assert_eq!(reply(nameless), Err(http::no_name(CALL, 0)));
        let malformed = decode::<Answer>(
            br#"{"content": [{"type": "text", "text": 5}]}"#,
            "the answer",
        );
        assert!(
            matches!(&malformed, Err(ModelError::Malformed(m)) if m.contains("content")),
            "{malformed:?}"
        );
    }

    #[test]
    fn anthropic_error_bodies_give_their_message() {
        let body =
            br#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        assert_eq!(error_message(body).as_deref(), Some("Overloaded"));
    }

    /// The samples of Anthropic's API reference read into these types and back unchanged; a
    /// `tool_use` block in an answer is read as a call, and written back the same in the next
    /// request, with its failed result marked as an error.
    #[test]
    fn the_api_references_samples_are_read_and_written_alike() {
        use crate::model::anthropic::api::{ContentBlock, Tool};
        use crate::model::http::samples::{reference_sample, round_trip, GetWeatherTool};
        use crate::Tool as _;

        let sample = reference_sample("anthropic");
        let _: Vec<Tool> = round_trip(&sample["tools"]);
        let _: ContentBlock = round_trip(&sample["tool_use"]);
        let _: ContentBlock = round_trip(&sample["tool_result"]);
        let _: ContentBlock = round_trip(&sample["tool_result_blocks"]);

        let answer = json!({"content": [sample["tool_use"]], "stop_reason": "tool_use"});
        let reply = reply(serde_json::from_value(answer).unwrap()).unwrap();
        assert_eq!(reply.tool_calls.len(), 1);
        let call = &reply.tool_calls[0];
        assert_eq!(
            serde_json::from_str::<Value>(&call.arguments).unwrap(),
            json!({"location": "San Francisco, CA"})
        );
        let conversation = [
            Message::user("Weather?"),
            Message::Assistant(reply.clone()),
            result(
                call.id.as_deref(),
                "toolu_01A09q90qw90lq917835lq9",
                "Error: no station",
                ToolResultStatus::Error,
            ),
        ];
        let body = encode(&conversation, &[], &ChatOptions::default());
        assert_eq!(body["messages"][1]["content"][0], sample["tool_use"]);
        assert_eq!(
            body["messages"][2]["content"][0],
            json!({"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                   "content": "Error: no station", "is_error": true})
        );

        let definition = GetWeatherTool.definition();
        let strict = crate::describe::lower(
            &definition.name,
            &definition.parameters,
            crate::describe::Dialect::AnthropicStrict,
        )
        .unwrap();
        assert_eq!(strict["additionalProperties"], false);
        assert!(
            strict["properties"]["days"].get("maximum").is_none(),
            "no bounds in strict mode"
        );
        let offered = [OfferedTool {
            definition,
            parameters: &strict,
        }];
        let chat = ChatRequest {
            messages: &conversation,
            tools: &offered,
            options: &ChatOptions::default(),
        };
        let body = serde_json::to_value(request("claude", 1024, chat, false, true)).unwrap();
        assert_eq!(body["tools"][0]["strict"], true);
        assert_eq!(body["tools"][0]["input_schema"], strict);
    }
}
