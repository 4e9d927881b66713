//! OpenAI Chat Completions: the request body (`model`, `messages`, `tools`, options), the answer
//! and the chunks of a streamed one, with conversions to and from this crate's calls.
//!
//! Request types borrow what they can (`Cow`): a body built from a conversation copies no
//! message and no schema. Answer types take every member as optional, since servers that speak
//! this API (vLLM, llama.cpp, Ollama) leave different ones out; what is missing is the reader's
//! to judge.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::define::{Part, ToolDefinition};
use crate::model::http::UsageFields;
use crate::model::ToolCall;

/// Where a Chat Completions usage object counts tokens.
pub(crate) const USAGE: UsageFields = UsageFields {
    input: &["prompt_tokens"],
    output: &["completion_tokens"],
};

/// The body of `POST /chat/completions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request<'a> {
    /// The model's name.
    pub(crate) model: Cow<'a, str>,
    /// The conversation, oldest first.
    pub(crate) messages: Vec<RequestMessage<'a>>,
    /// The tools the model may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tools: Vec<Tool<'a>>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) temperature: Option<f32>,
    /// Most tokens to generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_tokens: Option<u32>,
    /// Whether the answer comes as server-sent events.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) stream: bool,
    /// What a stream carries besides the reply: its usage, in a last chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stream_options: Option<StreamOptions>,
}

/// [`Request::stream_options`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StreamOptions {
    /// Asks for a last chunk, with no choice, holding the request's `usage`.
    pub(crate) include_usage: bool,
}

/// A message of [`Request::messages`], by its `role`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub(crate) enum RequestMessage<'a> {
    /// Instructions.
    System {
        /// The text.
        content: Cow<'a, str>,
    },
    /// What the user said.
    User {
        /// The text, or content parts.
        content: UserContent<'a>,
    },
    /// A reply of the model: text, tool calls, or both.
    Assistant {
        /// `null` when the reply is only tool calls, as the API expects.
        content: Option<Cow<'a, str>>,
        /// The calls.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCallPart<'a>>,
    },
    /// The result of one call.
    Tool {
        /// The id of the call it answers.
        tool_call_id: Cow<'a, str>,
        /// The result.
        content: Cow<'a, str>,
    },
}

/// The content of a user message: text, or parts (text, images, files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum UserContent<'a> {
    /// Text.
    Text(Cow<'a, str>),
    /// Content parts.
    Parts(Vec<UserPart<'a>>),
}

/// A part of a [`UserContent`], by its `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum UserPart<'a> {
    /// Text.
    Text {
        /// The text.
        text: Cow<'a, str>,
    },
    /// An image, by URL (a `data:` URL for inline content).
    ImageUrl {
        /// The image.
        image_url: ImageUrl<'a>,
    },
    /// A file given inline.
    File {
        /// The file.
        file: FileData<'a>,
    },
}

/// The image of a [`UserPart::ImageUrl`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ImageUrl<'a> {
    /// An `https:` or `data:` URL.
    pub(crate) url: Cow<'a, str>,
}

/// The file of a [`UserPart::File`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileData<'a> {
    /// The content as a `data:` URL (`data:application/pdf;base64,...`).
    pub(crate) file_data: Cow<'a, str>,
    /// The file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) filename: Option<Cow<'a, str>>,
}

impl<'a> UserPart<'a> {
    /// `part` as a user message part: an image as an `image_url` with its data URL, a file as a
    /// `file` with its data, text and JSON as text.
    pub(crate) fn from_part(part: &'a Part) -> Self {
        match part {
            Part::Image(media) => Self::ImageUrl {
                image_url: ImageUrl {
                    url: Cow::Owned(media.data_url()),
                },
            },
            Part::File(media) => Self::File {
                file: FileData {
                    file_data: Cow::Owned(media.data_url()),
                    filename: media.name().map(Cow::Borrowed),
                },
            },
            _ => Self::Text {
                text: Cow::Borrowed(part.as_text().unwrap_or_default()),
            },
        }
    }
}

/// An entry of `tools`: `{"type": "function", "function": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tool<'a> {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub(crate) kind: Cow<'a, str>,
    /// The function.
    pub(crate) function: Function<'a>,
}

/// The function of a [`Tool`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Function<'a> {
    /// The tool's name.
    pub(crate) name: Cow<'a, str>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<Cow<'a, str>>,
    /// JSON Schema of the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parameters: Option<Cow<'a, Value>>,
    /// Structured Outputs for the arguments: the schema must be in the OpenAI strict dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) strict: Option<bool>,
}

/// An entry of an assistant message's `tool_calls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ToolCallPart<'a> {
    /// The call's id.
    pub(crate) id: Cow<'a, str>,
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub(crate) kind: Cow<'a, str>,
    /// The function called.
    pub(crate) function: FunctionCall<'a>,
}

/// The function of a [`ToolCallPart`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FunctionCall<'a> {
    /// The tool's name.
    pub(crate) name: Cow<'a, str>,
    /// The arguments as JSON text.
    pub(crate) arguments: Cow<'a, str>,
}

impl<'a> Tool<'a> {
    /// `definition` offered with `parameters`, a schema already in the dialect meant: `strict`
    /// when it is the OpenAI strict one.
    pub(crate) fn new(definition: &'a ToolDefinition, parameters: &'a Value, strict: bool) -> Self {
        Self {
            kind: Cow::Borrowed("function"),
            function: Function {
                name: Cow::Borrowed(&definition.name),
                description: (!definition.description.is_empty())
                    .then_some(Cow::Borrowed(definition.description.as_str())),
                parameters: Some(Cow::Borrowed(parameters)),
                strict: strict.then_some(true),
            },
        }
    }
}

impl<'a> ToolCallPart<'a> {
    /// `call` as Chat Completions writes it, under `id`. Empty arguments are sent as `{}`,
    /// which every server takes.
    pub(crate) fn new(call: &'a ToolCall, id: Cow<'a, str>) -> Self {
        let arguments = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            call.arguments.as_str()
        };
        Self {
            id,
            kind: Cow::Borrowed("function"),
            function: FunctionCall {
                name: Cow::Borrowed(&call.name),
                arguments: Cow::Borrowed(arguments),
            },
        }
    }
}

/// A non-streamed answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Completion {
    /// The choices; the loop reads the one of lowest index.
    #[serde(default)]
    pub(crate) choices: Vec<Choice>,
    /// The tokens of the request (`prompt_tokens`, `completion_tokens`), read leniently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<Value>,
}

/// A choice of a [`Completion`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Choice {
    /// Its index.
    #[serde(default)]
    pub(crate) index: u32,
    /// The reply.
    #[serde(default)]
    pub(crate) message: Option<AnswerMessage>,
    /// Why the reply ended (`stop`, `tool_calls`, `length`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) finish_reason: Option<String>,
}

/// The reply of a [`Choice`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct AnswerMessage {
    /// Its text.
    #[serde(default)]
    pub(crate) content: Option<String>,
    /// A refusal, in place of text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refusal: Option<String>,
    /// Its calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_calls: Option<Vec<AnswerToolCall>>,
}

/// A call of an [`AnswerMessage`], or a piece of one in a stream chunk.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct AnswerToolCall {
    /// Which call of the reply a stream chunk continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) index: Option<usize>,
    /// The call's id.
    #[serde(default)]
    pub(crate) id: Option<String>,
    /// The function called.
    #[serde(default)]
    pub(crate) function: Option<AnswerFunction>,
}

/// The function of an [`AnswerToolCall`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct AnswerFunction {
    /// The tool's name.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// The arguments, or a piece of them in a stream chunk.
    #[serde(default)]
    pub(crate) arguments: Option<Arguments>,
}

/// Arguments as the API sends them (JSON text in a string), or as a JSON value, which some
/// servers send instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Arguments {
    /// JSON text, or a piece of it in a stream.
    Text(String),
    /// A JSON value.
    Value(Value),
}

impl Arguments {
    /// Appends the arguments' text to `text`.
    pub(crate) fn append_to(self, text: &mut String) {
        match self {
            Self::Text(piece) => text.push_str(&piece),
            Self::Value(value) => text.push_str(&value.to_string()),
        }
    }
}

/// One chunk of a streamed answer (one `data:` event).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Chunk {
    /// What each choice adds.
    #[serde(default)]
    pub(crate) choices: Vec<ChunkChoice>,
    /// Some servers report a failure mid-stream as a chunk with an `error` member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<Value>,
    /// The tokens of the request: in the last chunk when `stream_options.include_usage` asked
    /// for it (some servers count in every chunk), `null` in the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<Value>,
}

/// A choice of a [`Chunk`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct ChunkChoice {
    /// Its index.
    #[serde(default)]
    pub(crate) index: u32,
    /// What it adds.
    #[serde(default)]
    pub(crate) delta: Option<AnswerMessage>,
    /// Set on its last chunk.
    #[serde(default)]
    pub(crate) finish_reason: Option<String>,
}
