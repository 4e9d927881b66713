//! The model seam: what the loop sends a chat model and what comes back.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use crate::{AssistantMessage, Message, ToolDefinition};

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

/// A chat model that can call tools.
pub trait ChatModel: Send + Sync {
    /// Sends one request.
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a>;
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
        }
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl ChatModel for ScriptedModel {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(SeenRequest {
                messages: request.messages.to_vec(),
                tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            });
        }
        let reply = self.replies.lock().ok().and_then(|mut r| r.pop_front());
        Box::pin(async move { reply.map(ChatResponse::new).ok_or(ModelError::Exhausted) })
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
