//! The model seam: what the loop sends a chat model and what comes back.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt as _};

use crate::{AssistantMessage, Message, ToolCall, ToolDefinition};

/// A boxed future of a model call.
pub type ModelFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ChatResponse, ModelError>> + Send + 'a>>;

/// One request to a chat model: the conversation so far, the tools offered, and options.
/// Borrowed: building one clones no message and no schema.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The conversation, oldest first.
    pub messages: &'a [Message],
    /// The tools the model may call.
    pub tools: &'a [&'a ToolDefinition],
    /// Sampling and other options.
    pub options: &'a ChatOptions,
}

/// Options of a request. Fields a model does not support are ignored by it.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ChatOptions {
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Most tokens to generate.
    pub max_tokens: Option<u32>,
}

/// What the model answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChatResponse {
    /// The reply: text, tool calls, or both.
    pub message: AssistantMessage,
}

impl ChatResponse {
    /// A response with this reply.
    pub fn new(message: AssistantMessage) -> Self {
        Self { message }
    }
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The provider refused the request (a 4xx other than rate limiting), with its message.
    #[error("the model refused the request ({status}): {message}")]
    Refused {
        /// HTTP status, or 0 when there is none.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The provider could not be reached or failed after the retries.
    #[error("the model is unavailable: {0}")]
    Unavailable(String),
    /// The provider's answer could not be read.
    #[error("the model's answer is malformed: {0}")]
    Malformed(String),
    /// A scripted model ran out of replies.
    #[error("the scripted model has no reply left")]
    Exhausted,
}

/// A piece of a streamed reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatDelta {
    /// More of the reply's text.
    Text(String),
    /// A tool call, complete (its arguments whole): the loop may start it at once.
    ToolCall(ToolCall),
}

/// A streamed reply: its pieces, in order.
pub type ChatStream<'a> = Pin<Box<dyn Stream<Item = Result<ChatDelta, ModelError>> + Send + 'a>>;

/// A chat model that can call tools.
pub trait ChatModel: Send + Sync {
    /// Sends one request.
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a>;

    /// Sends one request and streams the reply, when the model can; `None` (the default) when
    /// it cannot, and the loop uses [`chat`](Self::chat).
    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        let _ = request;
        None
    }
}

/// A model that replays fixed replies, for tests, examples and offline runs; it records each
/// request's messages and tool names.
///
/// # Examples
///
/// ```
/// use tool_sdk::{AssistantMessage, ScriptedModel, ToolCall};
///
/// let model = ScriptedModel::new([
///     AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#)]),
///     AssistantMessage { text: Some("3".into()), tool_calls: vec![] },
/// ]);
/// ```
pub struct ScriptedModel {
    replies: Mutex<std::collections::VecDeque<AssistantMessage>>,
    seen: Mutex<Vec<SeenRequest>>,
    stream_gap: Option<Duration>,
}

/// What a [`ScriptedModel`] was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRequest {
    /// The conversation of the request.
    pub messages: Vec<Message>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
}

impl ScriptedModel {
    /// A model answering with `replies`, in order; after the last it fails with
    /// [`ModelError::Exhausted`].
    pub fn new(replies: impl IntoIterator<Item = AssistantMessage>) -> Self {
        Self {
            replies: Mutex::new(replies.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
            stream_gap: None,
        }
    }

    /// Also streams its replies: the text first, then each tool call as a whole, with `gap`
    /// before each piece, as a slow provider would.
    pub fn streaming(mut self, gap: Duration) -> Self {
        self.stream_gap = Some(gap);
        self
    }

    fn next_reply(&self, request: ChatRequest<'_>) -> Option<AssistantMessage> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(SeenRequest {
                messages: request.messages.to_vec(),
                tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            });
        }
        self.replies.lock().ok().and_then(|mut r| r.pop_front())
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl ChatModel for ScriptedModel {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let reply = self.next_reply(request);
        Box::pin(async move { reply.map(ChatResponse::new).ok_or(ModelError::Exhausted) })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        let gap = self.stream_gap?;
        let pieces: Vec<Result<ChatDelta, ModelError>> = match self.next_reply(request) {
            None => vec![Err(ModelError::Exhausted)],
            Some(reply) => reply
                .text
                .map(ChatDelta::Text)
                .into_iter()
                .chain(reply.tool_calls.into_iter().map(ChatDelta::ToolCall))
                .map(Ok)
                .collect(),
        };
        Some(Box::pin(stream::iter(pieces).then(
            move |piece| async move {
                tokio::time::sleep(gap).await;
                piece
            },
        )))
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let left = self.replies.lock().map(|r| r.len()).unwrap_or(0);
        f.debug_struct("ScriptedModel")
            .field("replies_left", &left)
            .finish()
    }
}
