//! Anthropic Messages: the request body (`model`, `max_tokens`, `system`, `messages`, `tools`),
//! its content blocks (`text`, `tool_use`, `tool_result`), the answer, and the events of a
//! streamed one, with conversions to and from this crate's calls.
//!
//! Request types borrow what they can (`Cow`): a body built from a conversation copies no
//! message and no schema. Answer types take block and event kinds this crate does not read
//! (thinking blocks, citations, ...) as `Other`, so a newer API does not break an older client.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use base64::Engine as _;

use crate::define::{Part, ToolDefinition};
use crate::model::http::UsageFields;
use crate::model::{ToolCall, ToolResultMessage, ToolResultStatus};

/// Where a Messages usage object counts tokens: tokens read from the cache or written to it
/// are read too, and counted apart.
pub(crate) const USAGE: UsageFields = UsageFields {
    input: &[
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ],
    output: &["output_tokens"],
};

/// The body of `POST /v1/messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request<'a> {
    /// The model's name.
    pub(crate) model: Cow<'a, str>,
    /// Most tokens to generate (required by the API).
    pub(crate) max_tokens: u32,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) system: Option<Cow<'a, str>>,
    /// The conversation, oldest first, `user` and `assistant` turns.
    pub(crate) messages: Vec<RequestMessage<'a>>,
    /// The tools the model may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tools: Vec<Tool<'a>>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) temperature: Option<f32>,
    /// Whether the answer comes as server-sent events.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) stream: bool,
}

/// A turn of [`Request::messages`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RequestMessage<'a> {
    /// Who speaks.
    pub(crate) role: Role,
    /// What is said.
    pub(crate) content: Vec<ContentBlock<'a>>,
}

/// The speaker of a [`RequestMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    /// The user, and the results of tool calls.
    User,
    /// The model.
    Assistant,
}

/// A content block of a request's message, by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ContentBlock<'a> {
    /// Text.
    Text {
        /// The text (the API refuses it empty).
        text: Cow<'a, str>,
    },
    /// A call the model made.
    ToolUse(ToolUse<'a>),
    /// The result of a call.
    ToolResult(ToolResult<'a>),
}

/// A `tool_use` block: a call of the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolUse<'a> {
    /// The call's id (`toolu_...`).
    pub(crate) id: Cow<'a, str>,
    /// The tool's name.
    pub(crate) name: Cow<'a, str>,
    /// The input, a JSON object (not text).
    pub(crate) input: Value,
}

/// A `tool_result` block: what a call gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolResult<'a> {
    /// The id of the `tool_use` it answers.
    pub(crate) tool_use_id: Cow<'a, str>,
    /// The result: text, or content blocks.
    pub(crate) content: ToolResultContent<'a>,
    /// Whether the result is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) is_error: Option<bool>,
}

/// The content of a [`ToolResult`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum ToolResultContent<'a> {
    /// Text.
    Text(Cow<'a, str>),
    /// Content blocks: text, images, documents.
    Blocks(Vec<ResultBlock<'a>>),
}

/// A block of a [`ToolResultContent`], by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ResultBlock<'a> {
    /// Text (the API refuses it empty).
    Text {
        /// The text.
        text: Cow<'a, str>,
    },
    /// An image (`image/jpeg`, `image/png`, `image/gif` or `image/webp`).
    Image {
        /// Where the image is.
        source: Source<'a>,
    },
    /// A document: a PDF, or plain text.
    Document {
        /// Where the document is.
        source: Source<'a>,
        /// Its title (a file name, say).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<Cow<'a, str>>,
    },
}

/// The `source` of an image or a document block, by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Source<'a> {
    /// Base64 data.
    Base64 {
        /// The media type.
        media_type: Cow<'a, str>,
        /// The content, base64-encoded.
        data: Cow<'a, str>,
    },
    /// Plain text (`text/plain`), as it is.
    Text {
        /// Always `text/plain`.
        media_type: Cow<'a, str>,
        /// The text.
        data: Cow<'a, str>,
    },
}

/// The image types an `image` block takes.
pub(crate) const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

impl<'a> ResultBlock<'a> {
    /// `part` as a block: text and JSON as text, an image of a type the API takes as an
    /// image, a PDF as a document, a `text/plain` file as a text document; anything else (an
    /// SVG, audio, a spreadsheet) as its placeholder text, which the model can read. `None`
    /// for empty text, which the API refuses.
    pub(crate) fn from_part(part: &'a Part) -> Option<Self> {
        let text = |text: Cow<'a, str>| (!text.is_empty()).then_some(Self::Text { text });
        match part {
            Part::Image(media) if IMAGE_TYPES.contains(&media.media_type()) => Some(Self::Image {
                source: Source::Base64 {
                    media_type: Cow::Borrowed(media.media_type()),
                    data: Cow::Borrowed(media.data()),
                },
            }),
            Part::File(media) if media.media_type() == "application/pdf" => Some(Self::Document {
                source: Source::Base64 {
                    media_type: Cow::Borrowed(media.media_type()),
                    data: Cow::Borrowed(media.data()),
                },
                title: media.name().map(Cow::Borrowed),
            }),
            Part::File(media) if media.media_type() == "text/plain" => {
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(media.data())
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok());
                match decoded {
                    Some(data) => Some(Self::Document {
                        source: Source::Text {
                            media_type: Cow::Borrowed("text/plain"),
                            data: Cow::Owned(data),
                        },
                        title: media.name().map(Cow::Borrowed),
                    }),
                    None => text(Cow::Owned(part.placeholder().unwrap_or_default())),
                }
            }
            _ => match part.as_text() {
                Some(part) => text(Cow::Borrowed(part)),
                None => text(Cow::Owned(part.placeholder().unwrap_or_default())),
            },
        }
    }
}

/// An entry of `tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tool<'a> {
    /// The tool's name.
    pub(crate) name: Cow<'a, str>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<Cow<'a, str>>,
    /// JSON Schema of the input.
    pub(crate) input_schema: Cow<'a, Value>,
    /// Strict tool use: the schema must be in the Anthropic strict dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) strict: Option<bool>,
}

impl<'a> Tool<'a> {
    /// `definition` offered with `input_schema`, a schema already in the dialect meant:
    /// `strict` when it is the Anthropic strict one.
    pub(crate) fn new(
        definition: &'a ToolDefinition,
        input_schema: &'a Value,
        strict: bool,
    ) -> Self {
        Self {
            name: Cow::Borrowed(&definition.name),
            description: (!definition.description.is_empty())
                .then_some(Cow::Borrowed(definition.description.as_str())),
            input_schema: Cow::Borrowed(input_schema),
            strict: strict.then_some(true),
        }
    }
}

impl From<ToolUse<'_>> for ToolCall {
    fn from(block: ToolUse<'_>) -> Self {
        ToolCall {
            id: Some(block.id.into_owned()),
            name: block.name.into_owned(),
            arguments: block.input.to_string(),
        }
    }
}

impl<'a> ToolResult<'a> {
    /// The result as a block answering the call `tool_use_id`; an error result is marked so.
    /// A result of parts goes as blocks (see [`ResultBlock::from_part`]).
    pub(crate) fn answering(result: &'a ToolResultMessage, tool_use_id: Cow<'a, str>) -> Self {
        Self {
            tool_use_id,
            content: content_of(result),
            is_error: (result.status != ToolResultStatus::Success).then_some(true),
        }
    }
}

/// What a result holds: its text, or the blocks of its parts (its text when none is left).
fn content_of(result: &ToolResultMessage) -> ToolResultContent<'_> {
    let blocks: Vec<ResultBlock<'_>> = result
        .parts
        .iter()
        .filter_map(ResultBlock::from_part)
        .collect();
    if blocks.is_empty() {
        ToolResultContent::Text(Cow::Borrowed(&result.content))
    } else {
        ToolResultContent::Blocks(blocks)
    }
}

/// A non-streamed answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// The reply's blocks, in order.
    #[serde(default)]
    pub(crate) content: Vec<AnswerBlock>,
    /// Why the reply ended: `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`,
    /// `pause_turn`, `refusal`.
    #[serde(default)]
    pub(crate) stop_reason: Option<String>,
    /// The tokens of the request (`input_tokens`, `output_tokens`, and those of the cache),
    /// read leniently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<Value>,
}

/// A block of an [`Answer`] (or the start of one in a stream), by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AnswerBlock {
    /// Text.
    Text {
        /// The text (empty at the start of a streamed block).
        #[serde(default)]
        text: String,
    },
    /// A call.
    ToolUse {
        /// Its id.
        id: String,
        /// The tool's name.
        name: String,
        /// Its input (`{}` at the start of a streamed block: the input comes in deltas).
        #[serde(default)]
        input: Value,
    },
    /// A kind of block this crate does not read (thinking, server tools, ...).
    #[serde(other)]
    Other,
}

/// One event of a streamed answer, by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum StreamEvent {
    /// The answer begins, with the tokens read so far.
    MessageStart {
        /// The message as it begins.
        #[serde(default)]
        message: StartedMessage,
    },
    /// A block begins at `index`.
    ContentBlockStart {
        /// The block's place in the reply.
        index: usize,
        /// The block as it begins.
        content_block: AnswerBlock,
    },
    /// More of the block at `index`.
    ContentBlockDelta {
        /// The block's place in the reply.
        index: usize,
        /// What it adds.
        delta: BlockDelta,
    },
    /// The block at `index` is complete.
    ContentBlockStop {
        /// The block's place in the reply.
        index: usize,
    },
    /// The answer's end is near: why it ends.
    MessageDelta {
        /// Its `stop_reason`.
        delta: MessageDelta,
        /// The counts so far (`output_tokens`, and some servers the input's again): each
        /// replaces the one `message_start` gave.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Value>,
    },
    /// The answer is complete.
    MessageStop,
    /// Nothing: keeps the connection alive.
    Ping,
    /// The provider failed mid-stream.
    Error {
        /// What failed.
        error: ErrorDetail,
    },
    /// A kind of event this crate does not read.
    #[serde(other)]
    Other,
}

/// What a `content_block_delta` adds, by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum BlockDelta {
    /// More text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// More of a call's input, as a piece of JSON text.
    InputJsonDelta {
        /// The piece.
        partial_json: String,
    },
    /// A kind of delta this crate does not read (thinking, citations, ...).
    #[serde(other)]
    Other,
}

/// The message a `message_start` event begins: only its usage is read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct StartedMessage {
    /// The tokens read (`input_tokens` and the cache's), and the first written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<Value>,
}

/// The body of a `message_delta` event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct MessageDelta {
    /// Why the reply ends.
    #[serde(default)]
    pub(crate) stop_reason: Option<String>,
}

/// An error the API reports: `{"type": "error", "error": {"type", "message"}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct ErrorDetail {
    /// Its class (`overloaded_error`, `invalid_request_error`, ...).
    #[serde(default, rename = "type")]
    pub(crate) kind: String,
    /// What went wrong.
    #[serde(default)]
    pub(crate) message: String,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_result_of_parts_goes_as_blocks_each_in_the_kind_the_api_takes() {
        let result = crate::model::chart_result("toolu_1");
        let block =
            serde_json::to_value(ToolResult::answering(&result, Cow::Borrowed("toolu_1"))).unwrap();
        assert_eq!(
            block,
            json!({
                "tool_use_id": "toolu_1",
                "content": [
                    {"type": "text", "text": "Sales by month:"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}},
                    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="}, "title": "q3.pdf"},
                    {"type": "text", "text": "[image (image/svg+xml)]"},
                ]
            })
        );
    }

    #[test]
    fn a_plain_text_file_is_a_text_document() {
        let part = Part::file("text/plain", "notes.txt", "day one");
        let block = serde_json::to_value(ResultBlock::from_part(&part)).unwrap();
        assert_eq!(
            block,
            json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "day one"}, "title": "notes.txt"})
        );
    }
}
