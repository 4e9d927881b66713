//! The `generateContent` mapping: a conversation written as the request body, the answer read
//! into a reply, what a finish reason means, and error bodies.

use std::borrow::Cow;
use std::time::Duration;

use crate::describe::Dialect;
use crate::model::gemini::api::{
    self as gemini, Content, FunctionCall, FunctionDeclaration, FunctionResponse, GenerationConfig,
    Part, PromptFeedback, Role, Tool,
};
pub(super) use crate::model::gemini::api::{GenerateContentResponse, Request};
use crate::model::http::{self, ErrorBody};
use crate::model::keys::key_position;
use crate::model::{
    AssistantMessage, ChatDelta, ChatOptions, ChatRequest, Message, ModelError, OfferedTool,
    ToolCall, ToolResultMessage,
};

/// How Gemini's error bodies are read.
pub(super) const ERRORS: ErrorBody = ErrorBody {
    message: error_message,
    retry_delay,
};

/// The body of `generateContent` (or `streamGenerateContent`, the same) for `request`, whose
/// tools are lowered to `dialect`.
pub(super) fn request(request: ChatRequest<'_>, dialect: Dialect) -> Request<'_> {
    let (system_instruction, contents) = contents(request.messages);
    Request {
        contents,
        tools: tools(request.tools, dialect),
        system_instruction,
        generation_config: generation_config(request.options),
    }
}

/// Every tool in one `tools` entry, each with its parameters as offered (already lowered to
/// `dialect`); no entry when no tool is offered.
fn tools<'a>(offered: &[OfferedTool<'a>], dialect: Dialect) -> Vec<Tool<'a>> {
    if offered.is_empty() {
        return Vec::new();
    }
    vec![Tool {
        function_declarations: offered
            .iter()
            .map(|tool| FunctionDeclaration::new(tool.definition, tool.parameters, dialect))
            .collect(),
    }]
}

fn generation_config(options: &ChatOptions) -> Option<GenerationConfig> {
    let config = GenerationConfig {
        temperature: options.temperature,
        max_output_tokens: options.max_tokens,
    };
    (config != GenerationConfig::default()).then_some(config)
}

/// Maps a conversation to the system instruction and the contents:
///
/// - system messages, wherever they are, are joined (a blank line between two) into the
///   system instruction;
/// - a user message is a `user` content with a text part;
/// - a reply is a `model` content: its text part, then a `functionCall` part per call;
/// - the results that follow a reply are one `user` content of `functionResponse` parts, in
///   the order of the calls they answer (Gemini matches them by place and name), whatever
///   their order in the conversation.
///
/// Empty text is left out (Gemini refuses an empty text part), and so is a message left with
/// nothing to say.
fn contents(conversation: &[Message]) -> (Option<Content<'_>>, Vec<Content<'_>>) {
    let mut system: Vec<&str> = Vec::new();
    let mut contents = Vec::with_capacity(conversation.len());
    // The calls of the last reply, for the results that follow it.
    let mut calls: &[ToolCall] = &[];
    let mut results: Vec<&ToolResultMessage> = Vec::new();
    for message in conversation {
        if let Message::Tool(result) = message {
            results.push(result);
            continue;
        }
        if !results.is_empty() {
            contents.push(responses(calls, &results));
            results.clear();
        }
        match message {
            Message::System { content } => {
                if !content.trim().is_empty() {
                    system.push(content);
                }
            }
            Message::User { content } => {
                if !content.is_empty() {
                    contents.push(Content {
                        role: Some(Role::User),
                        parts: vec![Part::text(content.as_str())],
                    });
                }
            }
            Message::Assistant(reply) => {
                calls = &reply.tool_calls;
                let text = reply.text.as_deref().filter(|text| !text.is_empty());
                let parts: Vec<Part<'_>> = text
                    .map(Part::text)
                    .into_iter()
                    .chain(
                        calls
                            .iter()
                            .map(|call| Part::function_call(FunctionCall::from_call(call))),
                    )
                    .collect();
                if !parts.is_empty() {
                    contents.push(Content {
                        role: Some(Role::Model),
                        parts,
                    });
                }
            }
            Message::Tool(_) => {}
        }
    }
    if !results.is_empty() {
        contents.push(responses(calls, &results));
    }
    let system_instruction = match system.as_slice() {
        [] => None,
        [one] => Some(Cow::Borrowed(*one)),
        several => Some(Cow::Owned(several.join("\n\n"))),
    }
    .map(|text| Content {
        role: None,
        parts: vec![Part::text(text)],
    });
    (system_instruction, contents)
}

/// The results of one reply as one `user` content, in the order of `calls`. A result finds
/// its call by its key (`#<position>`), else by its call id; one that finds none keeps its
/// place among the results. A call's id, when it had one, goes with its response.
fn responses<'a>(calls: &[ToolCall], results: &[&ToolResultMessage]) -> Content<'a> {
    let mut placed: Vec<(usize, FunctionResponse)> = results
        .iter()
        .enumerate()
        .map(|(place, result)| {
            let position = call_position(calls, result).unwrap_or(place);
            let mut response = FunctionResponse::from_result(result);
            if let Some(id) = calls
                .get(position)
                .and_then(|call| call.id.as_deref())
                .filter(|id| !id.is_empty())
            {
                response.id = Some(id.to_owned());
            }
            (position, response)
        })
        .collect();
    placed.sort_by_key(|(position, _)| *position);
    Content {
        role: Some(Role::User),
        parts: placed
            .into_iter()
            .map(|(_, response)| Part::function_response(response))
            .collect(),
    }
}

/// The position of the call `result` answers, among `calls`.
fn call_position(calls: &[ToolCall], result: &ToolResultMessage) -> Option<usize> {
    let by_key = key_position(&result.key).filter(|position| *position < calls.len());
    by_key.or_else(|| {
        let id = result.call_id.as_deref().filter(|id| !id.is_empty())?;
        calls.iter().position(|call| call.id.as_deref() == Some(id))
    })
}

/// The reply of an answer's first candidate.
///
/// # Errors
///
/// What [`finished`] says of its finish reason; [`ModelError::Refused`] when the prompt was
/// blocked; [`ModelError::Malformed`] when there is no candidate, or a call has no name.
pub(super) fn reply(answer: GenerateContentResponse) -> Result<AssistantMessage, ModelError> {
    let Some(candidate) = answer
        .candidates
        .into_iter()
        .min_by_key(|candidate| candidate.index.unwrap_or(0))
    else {
        return Err(blocked(answer.prompt_feedback.as_ref())
            .unwrap_or_else(|| ModelError::Malformed("the answer has no candidates".into())));
    };
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    for part in candidate
        .content
        .map(|content| content.parts)
        .unwrap_or_default()
    {
        match delta(part, tool_calls.len())? {
            Some(ChatDelta::ToolCall(call)) => tool_calls.push(call),
            Some(ChatDelta::Text(piece)) => text.get_or_insert_with(String::new).push_str(&piece),
            Some(ChatDelta::Usage(_)) | None => {}
        }
    }
    let produced = text.is_some() || !tool_calls.is_empty();
    finished(
        candidate.finish_reason.as_deref(),
        candidate.finish_message.as_deref(),
        produced,
    )?;
    Ok(AssistantMessage { text, tool_calls })
}

/// What a part of the reply adds to it: text (not the model's thoughts, and not empty), or a
/// call, the `position`-th of the reply; nothing for parts of other kinds.
pub(super) fn delta(part: Part<'_>, position: usize) -> Result<Option<ChatDelta>, ModelError> {
    if let Some(call) = part.function_call {
        if call.name.is_empty() {
            return Err(http::no_name(CALL, position));
        }
        let mut call = ToolCall::from(call);
        call.id = call.id.filter(|id| !id.is_empty());
        return Ok(Some(ChatDelta::ToolCall(call)));
    }
    if part.thought == Some(true) {
        return Ok(None);
    }
    Ok(part
        .text
        .filter(|text| !text.is_empty())
        .map(|text| ChatDelta::Text(text.into_owned())))
}

/// What a call is in a `generateContent` answer, for the error of one without a name.
pub(super) const CALL: &str = "function call";

/// What a reply's `finishReason` means, `produced` saying whether it holds any text or call:
///
/// - none yet, `STOP`, `FINISH_REASON_UNSPECIFIED`: the reply as it is (an empty one too);
/// - `MAX_TOKENS`: the reply, its text cut at the limit, as it is, unless it is empty: then
///   [`ModelError::Refused`], since the same request would be cut again;
/// - `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`, `TOO_MANY_TOOL_CALLS`,
///   `MALFORMED_RESPONSE`: the model wrote a call Gemini could not use:
///   [`ModelError::Malformed`], with Gemini's `finishMessage`;
/// - any other (`SAFETY`, `RECITATION`, `LANGUAGE`, `BLOCKLIST`, `PROHIBITED_CONTENT`,
///   `SPII`, `OTHER`, `MISSING_THOUGHT_SIGNATURE`, the image ones, and reasons this crate
///   does not know yet): Gemini withheld or cut the reply: [`ModelError::Refused`] with
///   status 0 (the HTTP exchange succeeded), whatever the reply held, so that nothing of a
///   withheld reply runs or passes for an answer.
pub(super) fn finished(
    reason: Option<&str>,
    message: Option<&str>,
    produced: bool,
) -> Result<(), ModelError> {
    let said = |what: String| match message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(message) => format!("{what}: {message}"),
        None => what,
    };
    match reason {
        None | Some("STOP" | "FINISH_REASON_UNSPECIFIED") => Ok(()),
        Some("MAX_TOKENS") if produced => Ok(()),
        Some("MAX_TOKENS") => Err(ModelError::Refused {
            status: 0,
            message: said(
                "the reply reached the token limit before any text or call (finishReason MAX_TOKENS)"
                    .into(),
            ),
        }),
        Some(
            reason @ ("MALFORMED_FUNCTION_CALL"
            | "UNEXPECTED_TOOL_CALL"
            | "TOO_MANY_TOOL_CALLS"
            | "MALFORMED_RESPONSE"),
        ) => Err(ModelError::Malformed(said(format!(
            "Gemini could not use the model's function call (finishReason {reason})"
        )))),
        Some(reason) => Err(ModelError::Refused {
            status: 0,
            message: said(format!("Gemini withheld the reply (finishReason {reason})")),
        }),
    }
}

/// The refusal of a prompt Gemini blocked, when `feedback` says it did.
pub(super) fn blocked(feedback: Option<&PromptFeedback>) -> Option<ModelError> {
    let feedback = feedback?;
    let reason = feedback.block_reason.as_deref()?;
    let mut message = format!("Gemini blocked the prompt (blockReason {reason})");
    if let Some(more) = feedback
        .block_reason_message
        .as_deref()
        .map(str::trim)
        .filter(|more| !more.is_empty())
    {
        message.push_str(": ");
        message.push_str(more);
    }
    Some(ModelError::Refused { status: 0, message })
}

/// Gemini's error body (`{"error": {...}}`, or a list of them, as a stream request without
/// `alt=sse` gets), read.
fn error_status(body: &[u8]) -> Option<gemini::ErrorStatus> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let value = match value {
        serde_json::Value::Array(items) => items.into_iter().next()?,
        other => other,
    };
    serde_json::from_value::<gemini::ErrorBody>(value)
        .ok()
        .map(|body| body.error)
}

/// The message of an error body: `error.message`, else `error.status`; else what the shared
/// reader finds (the body's text, shortened).
pub(super) fn error_message(body: &[u8]) -> Option<String> {
    error_status(body)
        .and_then(|status| status.text().map(str::to_owned))
        .or_else(|| http::error_message(body))
}

/// The wait an error body's `RetryInfo` asks for.
fn retry_delay(body: &[u8]) -> Option<Duration> {
    error_status(body)?.retry_delay()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::define::ToolDefinition;
    use crate::model::http::decode;
    use crate::model::http::samples::result;
    use crate::model::ToolResultStatus;

    fn encode(messages: &[Message], tools: &[(&ToolDefinition, &Value)]) -> Value {
        encode_with(messages, tools, &ChatOptions::default())
    }

    fn encode_with(
        messages: &[Message],
        tools: &[(&ToolDefinition, &Value)],
        options: &ChatOptions,
    ) -> Value {
        let offered: Vec<OfferedTool<'_>> = tools
            .iter()
            .map(|(definition, parameters)| OfferedTool {
                definition,
                parameters,
            })
            .collect();
        let request = ChatRequest {
            messages,
            tools: &offered,
            options,
        };
        serde_json::to_value(super::request(request, Dialect::Gemini)).unwrap()
    }

    fn answer(value: Value) -> Result<AssistantMessage, ModelError> {
        reply(decode(value.to_string().as_bytes(), "the answer")?)
    }

    #[test]
    fn a_whole_conversation_maps_to_the_generate_content_body() {
        let conversation = [
            Message::system("Be brief."),
            Message::user("Weather in Lisbon and Oslo, and book Lisbon?"),
            Message::Assistant(AssistantMessage {
                text: Some("Checking both.".into()),
                tool_calls: vec![
                    ToolCall::without_id("get_weather", r#"{"city":"Lisbon"}"#),
                    ToolCall::without_id("get_weather", r#"{"city": "Oslo"}"#),
                ],
            }),
            result(None, "#0", "get_weather", "sunny"),
            result(None, "#1", "get_weather", r#"{"sky": "rain"}"#),
            Message::Assistant(AssistantMessage::with_tool_calls(vec![ToolCall::new(
                "call-7",
                "book",
                r#"{"city": "Lisbon"}"#,
            )])),
            Message::Tool(ToolResultMessage {
                call_id: Some("call-7".into()),
                key: "call-7".into(),
                name: "book".into(),
                content: "Error: no rooms left".into(),
                parts: Vec::new(),
                status: ToolResultStatus::Error,
            }),
            Message::system("Answer in English."),
            Message::Assistant(AssistantMessage::text("Sunny in Lisbon, rain in Oslo.")),
        ];
        let weather = ToolDefinition::new(
            "get_weather",
            "Gets the weather.",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        );
        let lowered = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
        let book = ToolDefinition::new(
            "book",
            "",
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        );
        let body = encode(
            &conversation,
            &[(&weather, &lowered), (&book, &book.parameters)],
        );
        assert_eq!(
            body,
            json!({
                "contents": [
                    {"role": "user", "parts": [{"text": "Weather in Lisbon and Oslo, and book Lisbon?"}]},
                    {"role": "model", "parts": [
                        {"text": "Checking both."},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}}},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
                    ]},
                    {"role": "user", "parts": [
                        {"functionResponse": {"name": "get_weather", "response": {"result": "sunny"}}},
                        {"functionResponse": {"name": "get_weather", "response": {"sky": "rain"}}},
                    ]},
                    {"role": "model", "parts": [
                        {"functionCall": {"id": "call-7", "name": "book", "args": {"city": "Lisbon"}}},
                    ]},
                    {"role": "user", "parts": [
                        {"functionResponse": {"id": "call-7", "name": "book",
                                              "response": {"error": "Error: no rooms left"}}},
                    ]},
                    {"role": "model", "parts": [{"text": "Sunny in Lisbon, rain in Oslo."}]},
                ],
                "tools": [{"functionDeclarations": [
                    {"name": "get_weather", "description": "Gets the weather.", "parameters": lowered},
                    {"name": "book", "parameters": book.parameters},
                ]}],
                "systemInstruction": {"parts": [{"text": "Be brief.\n\nAnswer in English."}]},
            })
        );
    }

    #[test]
    fn results_go_back_in_the_order_of_their_calls() {
        let conversation = [
            Message::user("go"),
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::without_id("a", "{}"),
                ToolCall::new("dup", "b", "{}"),
                ToolCall::new("dup", "c", "{}"),
                ToolCall::new("own", "d", ""),
            ])),
            result(Some("own"), "own", "d", "4"),
            result(Some("dup"), "#2", "c", "3"),
            result(None, "#0", "a", "1"),
            result(Some("dup"), "#1", "b", "2"),
            Message::user("and then?"),
        ];
        let body = encode(&conversation, &[]);
        let calls = body["contents"][1]["parts"].as_array().unwrap();
        assert_eq!(
            calls[3]["functionCall"],
            json!({"id": "own", "name": "d", "args": {}}),
            "blank arguments go as an empty object"
        );
        let responses: Vec<(&str, &Value, &Value)> = body["contents"][2]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|part| {
                let response = &part["functionResponse"];
                (
                    response["name"].as_str().unwrap(),
                    &response["id"],
                    &response["response"]["result"],
                )
            })
            .collect();
        assert_eq!(
            responses,
            [
                ("a", &Value::Null, &json!("1")),
                ("b", &json!("dup"), &json!("2")),
                ("c", &json!("dup"), &json!("3")),
                ("d", &json!("own"), &json!("4")),
            ]
        );
        assert_eq!(
            body["contents"][3],
            json!({"role": "user", "parts": [{"text": "and then?"}]})
        );
        assert_eq!(body["contents"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn results_without_key_or_id_keep_their_place() {
        let conversation = [
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::without_id("a", "{}"),
                ToolCall::without_id("b", "{}"),
            ])),
            result(None, "", "a", "1"),
            result(None, "", "b", "2"),
        ];
        let body = encode(&conversation, &[]);
        let names: Vec<&Value> = body["contents"][1]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|part| &part["functionResponse"]["name"])
            .collect();
        assert_eq!(names, [&json!("a"), &json!("b")]);
    }

    #[test]
    fn denied_and_rolled_back_results_are_errors_and_arguments_not_an_object_keep_their_text() {
        let conversation = [
            Message::Assistant(AssistantMessage::with_tool_calls(vec![
                ToolCall::without_id("pay", r#"{"amount": NaN}"#),
                ToolCall::without_id("book", "[1]"),
            ])),
            Message::Tool(ToolResultMessage {
                call_id: None,
                key: "#0".into(),
                name: "pay".into(),
                content: "Not this month.".into(),
                parts: Vec::new(),
                status: ToolResultStatus::Denied,
            }),
            Message::Tool(ToolResultMessage {
                call_id: None,
                key: "#1".into(),
                name: "book".into(),
                content: r#"{"booked": true}"#.into(),
                parts: Vec::new(),
                status: ToolResultStatus::RolledBack,
            }),
        ];
        let body = encode(&conversation, &[]);
        assert_eq!(
            body["contents"][0]["parts"],
            json!([
                {"functionCall": {"name": "pay", "args": {"unreadable_arguments": "{\"amount\": NaN}"}}},
                {"functionCall": {"name": "book", "args": {"unreadable_arguments": "[1]"}}},
            ])
        );
        assert_eq!(
            body["contents"][1]["parts"],
            json!([
                {"functionResponse": {"name": "pay", "response": {"error": "Not this month."}}},
                {"functionResponse": {"name": "book", "response": {"error": "{\"booked\": true}"}}},
            ])
        );
    }

    #[test]
    fn options_tools_without_parameters_and_empty_messages() {
        let conversation = [
            Message::system("  "),
            Message::user(""),
            Message::user("hi"),
            Message::Assistant(AssistantMessage::default()),
        ];
        let now = ToolDefinition::new(
            "now",
            "The time.",
            json!({"type": "object", "properties": {}}),
        );
        let options = ChatOptions::new().with_temperature(0.5).with_max_tokens(64);
        let body = encode_with(&conversation, &[(&now, &now.parameters)], &options);
        assert_eq!(
            body,
            json!({
                "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "tools": [{"functionDeclarations": [{"name": "now", "description": "The time."}]}],
                "generationConfig": {"temperature": 0.5, "maxOutputTokens": 64},
            })
        );
        let options = ChatOptions::new().with_temperature(0.2);
        let request = ChatRequest {
            messages: &conversation,
            tools: &[],
            options: &options,
        };
        let text = serde_json::to_string(&super::request(request, Dialect::Gemini)).unwrap();
        assert!(
            text.contains(r#""generationConfig":{"temperature":0.2}"#),
            "sent as written: {text}"
        );
        assert_eq!(
            encode(&[Message::user("hi")], &[]),
            json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
        );
    }

    #[test]
    fn an_answer_decodes_to_a_reply_with_its_calls() {
        let reply = answer(json!({
            "candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model", "parts": [
                {"text": "thinking about it", "thought": true},
                {"text": "Let me "},
                {"text": "check."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}},
                 "thoughtSignature": "c2ln"},
                {"functionCall": {"id": "c2", "name": "now"}},
                {"inlineData": {"mimeType": "image/png", "data": ""}},
            ]}, "safetyRatings": []}],
            "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 9},
            "modelVersion": "gemini-2.5-flash",
        }))
        .unwrap();
        assert_eq!(
            reply,
            AssistantMessage {
                text: Some("Let me check.".into()),
                tool_calls: vec![
                    ToolCall::without_id("get_weather", r#"{"city":"Lisbon"}"#),
                    ToolCall::new("c2", "now", "{}"),
                ],
            }
        );
        let other_first = answer(json!({"candidates": [
            {"index": 1, "content": {"parts": [{"text": "second"}]}},
            {"index": 0, "content": {"parts": [{"text": "first"}]}, "finishReason": "STOP"},
        ]}))
        .unwrap();
        assert_eq!(other_first, AssistantMessage::text("first"));
        assert_eq!(
            answer(json!({"candidates": [{"content": {"role": "model"}, "finishReason": "STOP"}]})),
            Ok(AssistantMessage::default()),
            "an empty reply is a reply"
        );
    }

    #[test]
    fn finish_reasons_that_withhold_the_reply_are_errors() {
        let with = |reason: &str, parts: Value| {
            answer(
                json!({"candidates": [{"content": {"role": "model", "parts": parts},
                                          "finishReason": reason}]}),
            )
        };
        assert_eq!(
            with("SAFETY", json!([])),
            Err(ModelError::Refused {
                status: 0,
                message: "Gemini withheld the reply (finishReason SAFETY)".into()
            })
        );
        assert_eq!(
            with("RECITATION", json!([{"text": "It was the best of"}])),
            Err(ModelError::Refused {
                status: 0,
                message: "Gemini withheld the reply (finishReason RECITATION)".into()
            }),
            "a reply cut by a filter is not an answer"
        );
        assert!(matches!(
            with("SOMETHING_NEW", json!([{"text": "x"}])),
            Err(ModelError::Refused { status: 0, .. })
        ));
        assert_eq!(
            with("MAX_TOKENS", json!([{"text": "It is sun"}])),
            Ok(AssistantMessage::text("It is sun"))
        );
        assert!(matches!(
            with("MAX_TOKENS", json!([])),
            Err(ModelError::Refused { status: 0, message }) if message.contains("token limit")
        ));
        assert_eq!(
            answer(json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL",
                                          "finishMessage": "Malformed function call: get_weather(city=)"}]})),
            Err(ModelError::Malformed(
                "Gemini could not use the model's function call (finishReason MALFORMED_FUNCTION_CALL): \
                 Malformed function call: get_weather(city=)"
                    .into()
            ))
        );
        assert_eq!(
            answer(json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})),
            Err(ModelError::Refused {
                status: 0,
                message: "Gemini blocked the prompt (blockReason PROHIBITED_CONTENT)".into()
            })
        );
        assert_eq!(
            answer(json!({"candidates": []})),
            Err(ModelError::Malformed("the answer has no candidates".into()))
        );
    }

    #[test]
    fn answers_that_do_not_fit_are_malformed_with_a_path() {
        let error =
            answer(json!({"candidates": [{"content": {"parts": [{"text": 7}]}}]})).unwrap_err();
        let ModelError::Malformed(message) = error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains("`candidates[0].content.parts[0].text`"),
            "{message}"
        );
        assert_eq!(
            answer(json!({"candidates": [{"content": {"parts": [
                {"text": "a"}, {"functionCall": {"name": "", "args": {}}}
            ]}}]})),
            Err(http::no_name(CALL, 0))
        );
        assert!(matches!(
            answer(json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]})),
            Err(ModelError::Malformed(message)) if message.contains("name")
        ));
    }

    #[test]
    fn error_bodies_give_their_message_and_retry_delay() {
        let body = json!({"error": {
            "code": 429,
            "message": "You exceeded your current quota.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "24s"}]
        }})
        .to_string();
        assert_eq!(
            error_message(body.as_bytes()).as_deref(),
            Some("You exceeded your current quota.")
        );
        assert_eq!(retry_delay(body.as_bytes()), Some(Duration::from_secs(24)));
        let listed = br#"[{"error": {"code": 400, "message": "", "status": "INVALID_ARGUMENT"}}]"#;
        assert_eq!(error_message(listed).as_deref(), Some("INVALID_ARGUMENT"));
        assert_eq!(retry_delay(listed), None);
        assert_eq!(
            error_message(b"<html>Bad Gateway</html>").as_deref(),
            Some("<html>Bad Gateway</html>")
        );
        assert_eq!(error_message(b""), None);
    }

    /// The samples of Gemini's API reference read into these types and back unchanged; a
    /// `functionCall` in an answer is read as a call without an id, and written back the same
    /// in the next request, with its result as a `functionResponse`.
    #[test]
    fn the_api_references_samples_are_read_and_written_alike() {
        use crate::model::gemini::api::{FunctionResponse, Tool};
        use crate::model::http::samples::{reference_sample, round_trip, GetWeatherTool};
        use crate::Tool as _;

        let sample = reference_sample("gemini");
        let _: Vec<Tool> = round_trip(&sample["tools"]);
        let _: FunctionResponse = round_trip(&sample["function_response"]["functionResponse"]);

        let reply = answer(json!({"candidates": [{"content": {"role": "model",
            "parts": [sample["function_call"]]}, "finishReason": "STOP"}]}))
        .unwrap();
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].id, None, "Gemini gives calls no id");
        let conversation = [
            Message::user("Temperature in London?"),
            Message::Assistant(reply),
            result(
                None,
                "#0",
                "get_current_temperature",
                r#"{"temperature":12,"unit":"celsius"}"#,
            ),
            Message::Assistant(AssistantMessage::with_tool_calls(vec![ToolCall::new(
                "c",
                "get_current_temperature",
                "{}",
            )])),
            result(Some("c"), "c", "get_current_temperature", "sunny"),
        ];

        let definition = GetWeatherTool.definition();
        let openapi =
            crate::describe::lower(&definition.name, &definition.parameters, Dialect::Gemini)
                .unwrap();
        let body = encode(&conversation, &[(definition, &openapi)]);
        assert_eq!(body["contents"][1]["parts"][0], sample["function_call"]);
        assert_eq!(body["contents"][2]["parts"][0], sample["function_response"]);
        assert_eq!(
            body["contents"][4]["parts"][0]["functionResponse"]["response"],
            json!({"result": "sunny"})
        );
        let declaration = &body["tools"][0]["functionDeclarations"][0];
        assert!(declaration.get("parametersJsonSchema").is_none());
        let days = &declaration["parameters"]["properties"]["days"];
        assert_eq!(
            (days["type"].as_str(), days["nullable"].as_bool()),
            (Some("integer"), Some(true))
        );
        // With JSON Schema (the `v1beta` API), the schema goes in `parametersJsonSchema` instead,
        // a union with `null` as JSON Schema says it.
        let json_schema = crate::describe::lower(
            &definition.name,
            &definition.parameters,
            Dialect::GeminiJsonSchema,
        )
        .unwrap();
        let offered = [OfferedTool {
            definition,
            parameters: &json_schema,
        }];
        let options = ChatOptions::default();
        let chat = ChatRequest {
            messages: &conversation,
            tools: &offered,
            options: &options,
        };
        let body = serde_json::to_value(super::request(chat, Dialect::GeminiJsonSchema)).unwrap();
        let declaration = &body["tools"][0]["functionDeclarations"][0];
        assert!(declaration.get("parameters").is_none());
        assert_eq!(
            declaration["parametersJsonSchema"]["properties"]["days"]["type"],
            json!(["integer", "null"])
        );
    }
}
