//! A model that replays fixed replies.

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::stream::{self, StreamExt as _};

use crate::describe::Dialect;
use crate::model::{
    AssistantMessage, ChatDelta, ChatModel, ChatRequest, ChatResponse, ChatStream, Message,
    ModelError, ModelFuture, Usage,
};

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
    dialect: Dialect,
    usage: Option<Usage>,
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
            dialect: Dialect::OpenAi,
            usage: None,
        }
    }

    /// Speaks `dialect` (by default [`Dialect::OpenAi`]): the loop offers it the tools'
    /// schemas lowered to it, as it would a provider's model.
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// Reports `usage` for each request it answers (by default none), as a provider reports
    /// its tokens: with a whole reply, or as the last piece of a streamed one.
    ///
    /// ```
    /// use tool_sdk::model::Usage;
    /// use tool_sdk::{AssistantMessage, ScriptedModel};
    ///
    /// let model = ScriptedModel::new([AssistantMessage::text("Hi.")]).with_usage(Usage::new(12, 3));
    /// ```
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Also streams its replies: the text first, then each tool call as a whole, with `gap`
    /// before each piece, as a slow provider would.
    pub fn with_stream_gap(mut self, gap: Duration) -> Self {
        self.stream_gap = Some(gap);
        self
    }

    fn next_reply(&self, request: ChatRequest<'_>) -> Option<AssistantMessage> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(SeenRequest {
                messages: request.messages.to_vec(),
                tools: request.tools.iter().map(|t| t.name().to_owned()).collect(),
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
    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn description(&self) -> String {
        "scripted model (a stand-in replaying fixed replies, not a real model)".to_owned()
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let reply = self.next_reply(request);
        let usage = self.usage;
        Box::pin(async move {
            let response = reply.map(ChatResponse::new).ok_or(ModelError::Exhausted)?;
            Ok(match usage {
                Some(usage) => response.with_usage(usage),
                None => response,
            })
        })
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
                .chain(self.usage.map(ChatDelta::Usage))
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
