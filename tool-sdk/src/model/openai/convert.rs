//! The Chat Completions mapping: a conversation written as the request body, and the reply
//! read from an answer.

use std::borrow::Cow;

pub(super) use crate::model::http::decode;
use crate::model::http::{self, call_ids, result_id};
use crate::model::openai::api::StreamOptions;
pub(super) use crate::model::openai::api::{AnswerToolCall, Chunk, Completion, Request};
use crate::model::openai::api::{RequestMessage, Tool, ToolCallPart, UserContent, UserPart};
use crate::model::openai::MediaFallback;
use crate::model::{
    AssistantMessage, ChatRequest, Message, ModelError, ToolCall, ToolResultMessage,
};

/// What the ids made for calls without a usable one start with.
const CALL_ID_PREFIX: &str = "call_tool_sdk";

/// The body of `POST /chat/completions` for `request` to `model`; `stream` asks for
/// server-sent events, and `stream_usage` for the stream's usage in a last chunk; `strict` marks each tool's parameters (already in the OpenAI strict
/// dialect) as strict.
pub(super) fn request<'a>(
    model: &'a str,
    request: ChatRequest<'a>,
    stream: bool,
    stream_usage: bool,
    strict: bool,
    media: MediaFallback,
) -> Request<'a> {
    Request {
        model: Cow::Borrowed(model),
        messages: messages(request.messages, media),
        tools: request
            .tools
            .iter()
            .map(|offered| Tool::new(offered.definition, offered.parameters, strict))
            .collect(),
        temperature: request.options.temperature,
        max_tokens: request.options.max_tokens,
        stream,
        stream_options: (stream && stream_usage).then_some(StreamOptions {
            include_usage: true,
        }),
    }
}

/// Maps a conversation to Chat Completions messages. The API needs an id on every tool call
/// and the same id on its result: a call without one (some providers give none), or sharing
/// its id with another call of the reply, gets one made from its place in the conversation,
/// so the same conversation always gets the same ids. With [`MediaFallback::UserMessage`],
/// the images and files of a reply's results follow its last result in a user message.
fn messages(conversation: &[Message], media: MediaFallback) -> Vec<RequestMessage<'_>> {
    let mut out = Vec::with_capacity(conversation.len());
    // The ids sent for the calls of the last assistant message, and how many results of it
    // were seen since.
    let mut calls: Vec<(Option<&str>, Cow<'_, str>)> = Vec::new();
    let mut answered = 0;
    // The media of the results since the last assistant message, waiting for the last one.
    let mut attached: Vec<UserPart<'_>> = Vec::new();
    for (index, message) in conversation.iter().enumerate() {
        if !matches!(message, Message::Tool(_)) && !attached.is_empty() {
            out.push(attachments(std::mem::take(&mut attached)));
        }
        out.push(match message {
            Message::System { content } => RequestMessage::System {
                content: Cow::Borrowed(content),
            },
            Message::User { content } => RequestMessage::User {
                content: UserContent::Text(Cow::Borrowed(content)),
            },
            Message::Assistant(reply) => {
                calls = call_ids(CALL_ID_PREFIX, index, &reply.tool_calls);
                answered = 0;
                RequestMessage::Assistant {
                    content: match (&reply.text, reply.tool_calls.is_empty()) {
                        (Some(text), _) => Some(Cow::Borrowed(text.as_str())),
                        (None, true) => Some(Cow::Borrowed("")),
                        (None, false) => None,
                    },
                    tool_calls: reply
                        .tool_calls
                        .iter()
                        .zip(&calls)
                        .map(|(call, (_, id))| ToolCallPart::new(call, id.clone()))
                        .collect(),
                }
            }
            Message::Tool(result) => {
                let tool_call_id = result_id(CALL_ID_PREFIX, &calls, answered, result, index);
                answered += 1;
                if media == MediaFallback::UserMessage {
                    attach(result, &tool_call_id, &mut attached);
                }
                RequestMessage::Tool {
                    tool_call_id,
                    content: Cow::Borrowed(&result.content),
                }
            }
        });
    }
    if !attached.is_empty() {
        out.push(attachments(attached));
    }
    out
}

/// Adds `result`'s images and files to `attached`, after a line naming the call (by the id the
/// tool message carries) they came from.
fn attach<'a>(result: &'a ToolResultMessage, id: &str, attached: &mut Vec<UserPart<'a>>) {
    let mut media = result.parts.iter().filter(|part| part.as_media().is_some());
    let Some(first) = media.next() else {
        return;
    };
    attached.push(UserPart::Text {
        text: Cow::Owned(format!(
            "The images and files returned by the call {id} ({}):",
            result.name
        )),
    });
    attached.push(UserPart::from_part(first));
    attached.extend(media.map(UserPart::from_part));
}

fn attachments(parts: Vec<UserPart<'_>>) -> RequestMessage<'_> {
    RequestMessage::User {
        content: UserContent::Parts(parts),
    }
}

/// The reply of an answer's first choice.
pub(super) fn reply(completion: Completion) -> Result<AssistantMessage, ModelError> {
    let choice = completion
        .choices
        .into_iter()
        .min_by_key(|choice| choice.index)
        .ok_or_else(|| ModelError::Malformed("the answer has no choices".into()))?;
    let message = choice
        .message
        .ok_or_else(|| ModelError::Malformed("the answer's choice has no message".into()))?;
    let tool_calls = message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(position, call)| {
            let function = call.function.unwrap_or_default();
            let name = function
                .name
                .filter(|name| !name.is_empty())
                .ok_or_else(|| http::no_name(CALL, position))?;
            let mut arguments = String::new();
            if let Some(given) = function.arguments {
                given.append_to(&mut arguments);
            }
            Ok(ToolCall {
                id: call.id.filter(|id| !id.is_empty()),
                name,
                arguments,
            })
        })
        .collect::<Result<Vec<_>, ModelError>>()?;
    Ok(AssistantMessage {
        text: message.content.or(message.refusal),
        tool_calls,
    })
}

/// What a call is in a Chat Completions answer, for the error of one without a name.
pub(super) const CALL: &str = "tool call";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::define::ToolDefinition;
    use crate::model::http::error_message;
    use crate::model::http::samples::result;
    use serde_json::Value;

    use crate::model::{ChatOptions, OfferedTool};

    fn encode(messages: &[Message], tools: &[&ToolDefinition], stream: bool) -> Value {
        let options = ChatOptions::default();
        let offered: Vec<OfferedTool<'_>> =
            tools.iter().map(|d| OfferedTool::canonical(d)).collect();
        let request = ChatRequest {
            messages,
            tools: &offered,
            options: &options,
        };
        serde_json::to_value(super::request(
            "m",
            request,
            stream,
            false,
            false,
            MediaFallback::Placeholder,
        ))
        .unwrap()
    }

    fn chart(call_id: &str) -> Message {
        Message::Tool(crate::model::chart_result(call_id))
    }

    fn with_media(messages: &[Message], media: MediaFallback) -> Value {
        let options = ChatOptions::default();
        let request = ChatRequest {
            messages,
            tools: &[],
            options: &options,
        };
        serde_json::to_value(super::request("m", request, false, false, false, media)).unwrap()
    }

    #[test]
    fn media_of_results_follow_them_in_a_user_message_only_when_asked() {
        let conversation = [
            Message::user("sales?"),
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::new("c1", "chart", "{}"),
                ToolCall::new("c2", "chart", "{}"),
            ])),
            chart("c1"),
            chart("c2"),
            Message::Assistant(AssistantMessage::text("Here.")),
        ];
        let placeholder = with_media(&conversation, MediaFallback::Placeholder);
        let roles: Vec<&str> = placeholder["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "tool", "assistant"]);
        assert_eq!(
            placeholder["messages"][2]["content"],
            "Sales by month:\n[image (image/png)]\n[file q3.pdf (application/pdf)]\n[image (image/svg+xml)]"
        );

        let attached = with_media(&conversation, MediaFallback::UserMessage);
        let messages = attached["messages"].as_array().unwrap();
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        // After every result of the reply: the API wants the results right after their calls.
        assert_eq!(
            roles,
            ["user", "assistant", "tool", "tool", "user", "assistant"]
        );
        assert_eq!(
            messages[4]["content"],
            json!([
                {"type": "text", "text": "The images and files returned by the call c1 (chart):"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AQID"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERg==", "filename": "q3.pdf"}},
                {"type": "image_url", "image_url": {"url": "data:image/svg+xml;base64,PHN2Zy8+"}},
                {"type": "text", "text": "The images and files returned by the call c2 (chart):"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AQID"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERg==", "filename": "q3.pdf"}},
                {"type": "image_url", "image_url": {"url": "data:image/svg+xml;base64,PHN2Zy8+"}},
            ])
        );
    }

    #[test]
    fn messages_map_to_chat_completions_roles() {
        let conversation = [
            Message::system("Be brief."),
            Message::user("Weather in Lisbon?"),
            Message::Assistant(AssistantMessage {
                text: Some("Checking.".into()),
                tool_calls: vec![ToolCall::new("c1", "get_weather", r#"{"city":"Lisbon"}"#)],
            }),
            result(Some("c1"), "c1", "get_weather", "sunny"),
            Message::Assistant(AssistantMessage {
                text: Some("Sunny.".into()),
                tool_calls: vec![],
            }),
        ];
        let tool = ToolDefinition::new(
            "get_weather",
            "Gets the weather.",
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        );
        let body = encode(&conversation, &[&tool], false);
        assert_eq!(
            body,
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Weather in Lisbon?"},
                    {"role": "assistant", "content": "Checking.", "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "get_weather", "arguments": "{\"city\":\"Lisbon\"}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
                    {"role": "assistant", "content": "Sunny."},
                ],
                "tools": [{"type": "function", "function": {
                    "name": "get_weather",
                    "description": "Gets the weather.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                }}],
            })
        );
    }

    #[test]
    fn options_and_streaming_are_sent_only_when_set() {
        let conversation = [Message::user("hi")];
        let options = ChatOptions {
            temperature: Some(0.5),
            max_tokens: Some(64),
        };
        let request = ChatRequest {
            messages: &conversation,
            tools: &[],
            options: &options,
        };
        let body = |stream, stream_usage| {
            serde_json::to_value(super::request(
                "m",
                request,
                stream,
                stream_usage,
                false,
                MediaFallback::Placeholder,
            ))
            .unwrap()
        };
        assert_eq!(
            body(true, true),
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                   "temperature": 0.5, "max_tokens": 64, "stream": true,
                   "stream_options": {"include_usage": true}})
        );
        // Usage is asked of streams only, and not when the model was told not to.
        assert_eq!(body(true, false).get("stream_options"), None);
        assert_eq!(body(false, true).get("stream_options"), None);
        assert_eq!(body(false, true).get("stream"), None);
    }

    #[test]
    fn calls_without_a_usable_id_get_stable_generated_ids_matched_by_their_results() {
        let conversation = [
            Message::user("go"),
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::without_id("a", "{}"),
                ToolCall::new("dup", "b", ""),
                ToolCall::new("dup", "c", "{}"),
                ToolCall::new("ok", "d", "{}"),
            ])),
            result(None, "#0", "a", "1"),
            result(Some("dup"), "#1", "b", "2"),
            result(Some("dup"), "#2", "c", "3"),
            result(Some("ok"), "ok", "d", "4"),
        ];
        let body = encode(&conversation, &[], false);
        let ids: Vec<&str> = body["messages"][1]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| call["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "call_tool_sdk_1_0",
                "call_tool_sdk_1_1",
                "call_tool_sdk_1_2",
                "ok"
            ]
        );
        let answered: Vec<&str> = (2..6)
            .map(|i| body["messages"][i]["tool_call_id"].as_str().unwrap())
            .collect();
        assert_eq!(
            answered, ids,
            "every result names the id its call was sent with"
        );
        assert_eq!(
            body["messages"][1]["tool_calls"][1]["function"]["arguments"], "{}",
            "blank arguments are sent as an empty object"
        );
        assert_eq!(body["messages"][1]["content"], Value::Null);
        assert_eq!(
            encode(&conversation, &[], false),
            body,
            "the same conversation gets the same ids"
        );
    }

    #[test]
    fn results_without_key_or_id_are_matched_by_position() {
        let conversation = [
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::without_id("a", "{}"),
                ToolCall::without_id("b", "{}"),
            ])),
            result(None, "", "a", "1"),
            result(None, "", "b", "2"),
        ];
        let body = encode(&conversation, &[], false);
        assert_eq!(body["messages"][1]["tool_call_id"], "call_tool_sdk_0_0");
        assert_eq!(body["messages"][2]["tool_call_id"], "call_tool_sdk_0_1");
    }

    #[test]
    fn an_answer_decodes_to_a_reply() {
        let body = json!({
            "id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Lisbon\"}"}},
                    {"id": "", "type": "function",
                     "function": {"name": "list_notes", "arguments": {"all": true}}},
                    {"type": "function", "function": {"name": "now"}}
                ]}}]
        });
        let completion: Completion = decode(body.to_string().as_bytes(), "the answer").unwrap();
        assert_eq!(
            reply(completion).unwrap(),
            AssistantMessage::with_tool_calls(vec![
                ToolCall::new("call_1", "get_weather", r#"{"city":"Lisbon"}"#),
                ToolCall::without_id("list_notes", r#"{"all":true}"#),
                ToolCall::without_id("now", ""),
            ])
        );
    }

    #[test]
    fn answers_that_do_not_fit_are_malformed_with_a_path() {
        let error = decode::<Completion>(
            br#"{"choices": [{"message": {"content": 7}}]}"#,
            "the answer",
        )
        .unwrap_err();
        let ModelError::Malformed(message) = error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains("`choices[0].message.content`"),
            "{message}"
        );

        let empty: Completion = decode(br#"{"choices": []}"#, "the answer").unwrap();
        assert_eq!(
            reply(empty),
            Err(ModelError::Malformed("the answer has no choices".into()))
        );
        let nameless: Completion = decode(
            br#"{"choices": [{"message": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]}"#,
            "the answer",
        )
        .unwrap();
        assert_eq!(reply(nameless), Err(http::no_name(CALL, 0)));
        assert!(matches!(
            decode::<Completion>(b"<html>", "the answer"),
            Err(ModelError::Malformed(_))
        ));
    }

    #[test]
    fn error_messages_are_found_in_each_providers_shape() {
        let cases: [(&[u8], Option<&str>); 8] = [
            (
                br#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}"#,
                Some("Incorrect API key provided"),
            ),
            (br#"{"error": "model 'x' not found"}"#, Some("model 'x' not found")),
            (
                br#"{"object": "error", "message": "max_tokens is too large", "code": 400}"#,
                Some("max_tokens is too large"),
            ),
            (br#"{"detail": "Not Found"}"#, Some("Not Found")),
            (
                br#"{"detail": [{"loc": ["body"], "msg": "field required"}]}"#,
                Some("field required"),
            ),
            (b"upstream connect error", Some("upstream connect error")),
            (b"  ", None),
            (br#"{"error": {"message": ""}, "message": "fallback"}"#, Some("fallback")),
        ];
        for (body, expected) in cases {
            assert_eq!(
                error_message(body).as_deref(),
                expected,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        let long = "x".repeat(5_000);
        let short = error_message(long.as_bytes()).unwrap();
        assert_eq!(short.chars().count(), 1_001);
    }

    /// The samples of OpenAI's API reference read into these types and back unchanged; a call
    /// in an answer is read as the sample writes it, and written back the same in the next
    /// request, with its result as the sample's tool message.
    #[test]
    fn the_api_references_samples_are_read_and_written_alike() {
        use crate::model::http::samples::{reference_sample, round_trip, GetWeatherTool};
        use crate::model::openai::api::{RequestMessage, Tool, ToolCallPart};
        use crate::Tool as _;

        let sample = reference_sample("openai_chat");
        let _: Vec<Tool> = round_trip(&sample["tools"]);
        let _: Vec<ToolCallPart> = round_trip(&sample["tool_calls"]);
        let _: RequestMessage = round_trip(&sample["tool_message"]);

        let answer = json!({"choices": [{"index": 0, "message": {
            "role": "assistant", "content": null, "tool_calls": sample["tool_calls"]}}]});
        let reply = super::reply(serde_json::from_value(answer).unwrap()).unwrap();
        assert_eq!(
            reply.tool_calls,
            [ToolCall::new(
                "call_12345xyz",
                "get_weather",
                r#"{"location":"Paris, France"}"#
            )]
        );
        let conversation = [
            Message::user("Weather in Paris?"),
            Message::Assistant(reply),
            result(Some("call_12345xyz"), "call_12345xyz", "get_weather", "14"),
        ];
        let definition = GetWeatherTool.definition();
        let strict = crate::describe::lower(
            &definition.name,
            &definition.parameters,
            crate::describe::Dialect::OpenAiStrict,
        )
        .unwrap();
        let options = ChatOptions::default();
        let offered = [OfferedTool {
            definition,
            parameters: &strict,
        }];
        let request = ChatRequest {
            messages: &conversation,
            tools: &offered,
            options: &options,
        };
        let body = serde_json::to_value(super::request(
            "m",
            request,
            false,
            false,
            true,
            MediaFallback::Placeholder,
        ))
        .unwrap();
        assert_eq!(body["messages"][1]["tool_calls"], sample["tool_calls"]);
        assert_eq!(body["messages"][2], sample["tool_message"]);
        let function = &body["tools"][0]["function"];
        assert_eq!(function["strict"], true);
        assert_eq!(
            function["parameters"]["required"],
            json!(["location", "days"])
        );
    }
}
