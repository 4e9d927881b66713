//! Gemini's `generateContent` API: the request body (`contents`, `tools`, `systemInstruction`,
//! `generationConfig`), the answer and each chunk of a streamed one
//! ([`GenerateContentResponse`]), the error body, and the parts that carry tools: function
//! declarations, `functionCall` and `functionResponse`, with conversions to and from this
//! crate's types.
//!
//! Request types borrow what they can (`Cow`): a body built from a conversation copies no text
//! and no schema (a call's arguments and a result become JSON objects, which are built).
//! Answer types take members as optional and pass over the ones they do not know (usage,
//! safety ratings, citations), whose absence or shape is the reader's to judge.

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::define::{self, ToolDefinition};
use crate::describe::Dialect;
use crate::model::http::arguments_object;
use crate::model::http::UsageFields;
use crate::model::{ToolCall, ToolResultMessage};

/// Where Gemini's `usageMetadata` counts tokens: what the model thought is written, and
/// counted apart.
pub(crate) const USAGE: UsageFields = UsageFields {
    input: &["promptTokenCount"],
    output: &["candidatesTokenCount", "thoughtsTokenCount"],
};

/// The body of `POST {base URL}/models/{model}:generateContent` (and of
/// `:streamGenerateContent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request<'a> {
    /// The conversation, oldest first, without its system instructions.
    pub(crate) contents: Vec<Content<'a>>,
    /// The tools the model may call: one entry holding every declaration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tools: Vec<Tool<'a>>,
    /// The system instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) system_instruction: Option<Content<'a>>,
    /// Sampling and length options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) generation_config: Option<GenerationConfig>,
}

/// A turn of the conversation: who speaks, and the parts of what they say.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Content<'a> {
    /// `user` or `model`; left out in system instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<Role>,
    /// What is said.
    #[serde(default)]
    pub(crate) parts: Vec<Part<'a>>,
}

/// Who speaks in a [`Content`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    /// The user, and the results of the model's calls.
    User,
    /// The model.
    Model,
}

/// One part of a [`Content`]: text, a function call or a function's response (a part holds
/// one of them). Parts of other kinds (images, code) are read as parts with none of them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Part<'a> {
    /// Text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<Cow<'a, str>>,
    /// `true` when the text is a summary of the model's thinking, not part of its reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) thought: Option<bool>,
    /// The opaque signature of the model's thinking that led to this part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) thought_signature: Option<Cow<'a, str>>,
    /// A call the model makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) function_call: Option<FunctionCall>,
    /// The response to a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) function_response: Option<FunctionResponse>,
}

impl<'a> Part<'a> {
    /// A text part.
    pub(crate) fn text(text: impl Into<Cow<'a, str>>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A part holding a call.
    pub(crate) fn function_call(call: FunctionCall) -> Self {
        Self {
            function_call: Some(call),
            ..Self::default()
        }
    }

    /// A part holding a call's response.
    pub(crate) fn function_response(response: FunctionResponse) -> Self {
        Self {
            function_response: Some(response),
            ..Self::default()
        }
    }
}

/// `generationConfig`: the options of [`ChatOptions`](crate::model::ChatOptions) Gemini has.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerationConfig {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) temperature: Option<f32>,
    /// Most tokens to generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_output_tokens: Option<u32>,
}

/// An entry of `tools`: a group of function declarations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tool<'a> {
    /// The declarations.
    pub(crate) function_declarations: Vec<FunctionDeclaration<'a>>,
}

/// One function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionDeclaration<'a> {
    /// The tool's name.
    pub(crate) name: Cow<'a, str>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<Cow<'a, str>>,
    /// The arguments, in Gemini's OpenAPI subset ([`Dialect::Gemini`]); left out for a tool
    /// without any, or sent as [`parameters_json_schema`](Self::parameters_json_schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parameters: Option<Cow<'a, Value>>,
    /// The arguments as JSON Schema ([`Dialect::GeminiJsonSchema`], `v1beta`); never beside
    /// `parameters`.
    #[serde(
        default,
        rename = "parametersJsonSchema",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) parameters_json_schema: Option<Cow<'a, Value>>,
}

/// A function call; Gemini often gives no id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionCall {
    /// The call's id, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    /// The tool's name.
    pub(crate) name: String,
    /// The arguments, as a JSON object.
    #[serde(default)]
    pub(crate) args: Value,
}

/// The answer to one call, matched by name (and id when the call had one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionResponse {
    /// The call's id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    /// The tool's name.
    pub(crate) name: String,
    /// The result, as a JSON object.
    pub(crate) response: Value,
    /// The result's images and files, in order (Gemini 3 reads them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) parts: Vec<ResponsePart>,
}

/// A part of a [`FunctionResponse`]: media given inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponsePart {
    /// The media.
    pub(crate) inline_data: ResponseBlob,
}

/// Media of a [`ResponsePart`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponseBlob {
    /// The media type.
    pub(crate) mime_type: String,
    /// The content, base64-encoded.
    pub(crate) data: String,
    /// Its name (a file name, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) display_name: Option<String>,
}

/// The media types a function response takes inline.
pub(crate) const RESPONSE_MEDIA_TYPES: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/webp",
    "application/pdf",
    "text/plain",
];

impl<'a> FunctionDeclaration<'a> {
    /// `definition` declared with `parameters`, a schema already in `dialect`
    /// ([`Dialect::GeminiJsonSchema`] goes in `parametersJsonSchema`, any other in
    /// `parameters`). A schema without properties is left out: Gemini refuses an `OBJECT` that
    /// has none ("should be non-empty for OBJECT type"), and a function declared without
    /// parameters is called with none.
    pub(crate) fn new(
        definition: &'a ToolDefinition,
        parameters: &'a Value,
        dialect: Dialect,
    ) -> Self {
        Self::declare(
            Cow::Borrowed(&definition.name),
            (!definition.description.is_empty())
                .then_some(Cow::Borrowed(definition.description.as_str())),
            Cow::Borrowed(parameters),
            dialect,
        )
    }

    fn declare(
        name: Cow<'a, str>,
        description: Option<Cow<'a, str>>,
        parameters: Cow<'a, Value>,
        dialect: Dialect,
    ) -> Self {
        let parameters = has_properties(&parameters).then_some(parameters);
        let (parameters, parameters_json_schema) = match dialect {
            Dialect::GeminiJsonSchema => (None, parameters),
            _ => (parameters, None),
        };
        Self {
            name,
            description,
            parameters,
            parameters_json_schema,
        }
    }
}

fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty())
}

impl FunctionCall {
    /// `call` as Gemini writes it. Its arguments are JSON text and `args` must be a JSON
    /// object: an object is sent as it is, blank arguments as `{}`, and anything else (text
    /// that is not JSON, an array, a number) under [`UNREADABLE_ARGUMENTS_KEY`](crate::model::http::UNREADABLE_ARGUMENTS_KEY) as the text it
    /// is, so the model reads what was sent and the result that refused it. An empty id is
    /// left out.
    pub(crate) fn from_call(call: &ToolCall) -> Self {
        Self {
            id: call.id.clone().filter(|id| !id.is_empty()),
            name: call.name.clone(),
            args: arguments_object(&call.arguments),
        }
    }
}

impl From<FunctionCall> for ToolCall {
    /// The call with its `args` as JSON text; a call without `args` (or with `null`) has `{}`.
    fn from(call: FunctionCall) -> Self {
        let arguments = match call.args {
            Value::Null => "{}".to_owned(),
            args => args.to_string(),
        };
        ToolCall {
            id: call.id,
            name: call.name,
            arguments,
        }
    }
}

impl FunctionResponse {
    /// The result as Gemini reads it, as `google-genai`'s own function calling writes it: a
    /// result that failed (an error, a denial, a rollback) as `{"error": content}`; a success
    /// whose content is a JSON object as that object, any other as `{"result": content}`.
    pub(crate) fn from_result(result: &ToolResultMessage) -> Self {
        let (text, parts) = if result.parts.is_empty() {
            (Cow::Borrowed(result.content.as_str()), Vec::new())
        } else {
            split_parts(&result.parts)
        };
        let response = if result.is_error() {
            json!({ "error": text })
        } else {
            match serde_json::from_str::<Value>(&text) {
                Ok(object @ Value::Object(_)) => object,
                _ => json!({ "result": text }),
            }
        };
        Self {
            id: result.call_id.clone().filter(|id| !id.is_empty()),
            name: result.name.clone(),
            response,
            parts,
        }
    }
}

/// A result's parts as the text of its `response` (texts, and a placeholder for media Gemini
/// does not take inline) and its inline media.
fn split_parts(parts: &[define::Part]) -> (Cow<'_, str>, Vec<ResponsePart>) {
    let mut text = String::new();
    let mut inline = Vec::new();
    for part in parts {
        let shown = match part.as_media() {
            Some(media) if RESPONSE_MEDIA_TYPES.contains(&media.media_type()) => {
                inline.push(ResponsePart {
                    inline_data: ResponseBlob {
                        mime_type: media.media_type().to_owned(),
                        data: media.data().to_owned(),
                        display_name: media.name().map(str::to_owned),
                    },
                });
                continue;
            }
            Some(_) => part.placeholder().unwrap_or_default(),
            None => part.as_text().unwrap_or_default().to_owned(),
        };
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&shown);
    }
    (Cow::Owned(text), inline)
}

/// An answer, or one chunk of a streamed answer (one `data:` event).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerateContentResponse {
    /// The replies; one is asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) candidates: Vec<Candidate>,
    /// Why the prompt was blocked, when it was (there are no candidates then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) prompt_feedback: Option<PromptFeedback>,
    /// Token counts, as Gemini gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage_metadata: Option<Value>,
    /// A failure after a stream began comes as a chunk holding only this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<ErrorStatus>,
}

/// A reply of a [`GenerateContentResponse`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Candidate {
    /// What the model said (in a stream, what this chunk adds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<Content<'static>>,
    /// Why the reply ended (`STOP`, `MAX_TOKENS`, `SAFETY`, ...): on its last chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) finish_reason: Option<String>,
    /// More about the finish reason, sometimes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) finish_message: Option<String>,
    /// Its index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) index: Option<u32>,
}

/// Why a prompt was blocked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptFeedback {
    /// `SAFETY`, `OTHER`, `BLOCKLIST`, `PROHIBITED_CONTENT`, ...; none when not blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) block_reason: Option<String>,
    /// More about it, sometimes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) block_reason_message: Option<String>,
}

/// The body of an error answer: `{"error": {"code", "message", "status", "details"}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct ErrorBody {
    /// The error.
    pub(crate) error: ErrorStatus,
}

/// An error, as `google.rpc.Status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct ErrorStatus {
    /// The HTTP status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) code: Option<i64>,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    /// The status's name (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<String>,
    /// Typed details (`@type`), such as `google.rpc.RetryInfo`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) details: Vec<Value>,
}

impl ErrorStatus {
    /// Its message, else its status's name, when either is not blank.
    pub(crate) fn text(&self) -> Option<&str> {
        [self.message.as_deref(), self.status.as_deref()]
            .into_iter()
            .flatten()
            .map(str::trim)
            .find(|text| !text.is_empty())
    }

    /// The wait a `google.rpc.RetryInfo` detail asks for before trying again
    /// (`"retryDelay": "24s"`), when there is one.
    pub(crate) fn retry_delay(&self) -> Option<Duration> {
        self.details
            .iter()
            .filter(|detail| {
                detail
                    .get("@type")
                    .and_then(Value::as_str)
                    .is_some_and(|kind| kind.ends_with("google.rpc.RetryInfo"))
            })
            .find_map(|detail| {
                let seconds = detail
                    .get("retryDelay")?
                    .as_str()?
                    .trim()
                    .strip_suffix('s')?
                    .parse::<f64>()
                    .ok()?;
                Duration::try_from_secs_f64(seconds).ok()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::http::UNREADABLE_ARGUMENTS_KEY;

    #[test]
    fn a_result_of_parts_sends_its_media_inline_and_its_text_as_the_response() {
        let result = crate::model::chart_result("c1");
        let response = serde_json::to_value(FunctionResponse::from_result(&result)).unwrap();
        assert_eq!(
            response,
            json!({
                "id": "c1",
                "name": "chart",
                "response": {"result": "Sales by month:\n[image (image/svg+xml)]"},
                "parts": [
                    {"inlineData": {"mimeType": "image/png", "data": "AQID"}},
                    {"inlineData": {"mimeType": "application/pdf", "data": "JVBERg==", "displayName": "q3.pdf"}},
                ]
            })
        );
    }

    #[test]
    fn retry_info_is_read_from_the_details() {
        let body: ErrorBody = serde_json::from_value(json!({"error": {
            "code": 429, "message": "", "status": "RESOURCE_EXHAUSTED",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}
            ]
        }}))
        .unwrap();
        assert_eq!(body.error.retry_delay(), Some(Duration::from_millis(1500)));
        assert_eq!(body.error.text(), Some("RESOURCE_EXHAUSTED"));
        for delay in ["-1s", "NaNs", "24", "soon"] {
            let status = ErrorStatus {
                details: vec![json!({"@type": "google.rpc.RetryInfo", "retryDelay": delay})],
                ..ErrorStatus::default()
            };
            assert_eq!(status.retry_delay(), None, "{delay}");
        }
        assert_eq!(ErrorStatus::default().text(), None);
    }

    #[test]
    fn arguments_that_are_not_an_object_go_as_their_text() {
        let args = |text: &str| FunctionCall::from_call(&ToolCall::without_id("f", text)).args;
        assert_eq!(args(r#"{"a": 1}"#), json!({"a": 1}));
        assert_eq!(args("  "), json!({}));
        for text in [r#"{"city": NaN}"#, "[1, 2]", "7", "\"x\"", "null"] {
            assert_eq!(
                args(text),
                json!({ UNREADABLE_ARGUMENTS_KEY: text }),
                "{text}"
            );
        }
        let call = FunctionCall::from_call(&ToolCall::new("", "f", "{}"));
        assert_eq!(call.id, None, "an empty id is left out");
    }

    #[test]
    fn a_call_read_without_args_has_an_empty_object() {
        let call: FunctionCall = serde_json::from_value(json!({"name": "now"})).unwrap();
        assert_eq!(ToolCall::from(call), ToolCall::without_id("now", "{}"));
        let call: FunctionCall =
            serde_json::from_value(json!({"id": "c", "name": "f", "args": {"a": [1]}})).unwrap();
        assert_eq!(
            ToolCall::from(call),
            ToolCall::new("c", "f", r#"{"a":[1]}"#)
        );
    }
}
