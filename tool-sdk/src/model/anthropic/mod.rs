//! A [`ChatModel`] over Anthropic's Messages API.
//!
//! [`AnthropicModel`] sends `POST {base URL}/v1/messages` with `x-api-key` and
//! `anthropic-version`, whole ([`ChatModel::chat`]) or streamed as server-sent events
//! ([`ChatModel::chat_stream`], which the [`ToolLoop`](crate::run::ToolLoop) uses by default:
//! each tool call is handed to the loop as soon as its `tool_use` block stops, while the rest
//! of the reply still arrives). It needs the `anthropic` feature, on by default.
//!
//! System messages become the `system` prompt; a reply's calls are `tool_use` blocks and their
//! results `tool_result` blocks in one user turn (a failed call's result with `is_error`); a
//! call the conversation holds without an id gets a stable generated one. Tools are sent with
//! their schemas in the [`Anthropic`](crate::describe::Dialect::Anthropic) dialect, or
//! [`AnthropicStrict`](crate::describe::Dialect::AnthropicStrict) with `"strict": true` when
//! built [strict](AnthropicBuilder::with_strict).
//!
//! # Examples
//!
//! ```no_run
//! use tool_sdk::model::anthropic::AnthropicModel;
//! use tool_sdk::run::{LoopStatus, ToolLoop};
//! use tool_sdk::{tool, Message, ToolRegistry};
//!
//! /// Gets the current weather for a city.
//! #[tool]
//! fn get_weather(city: String) -> String {
//!     format!("{city}: sunny, 21 °C")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Or AnthropicModel::from_env(): ANTHROPIC_API_KEY, ANTHROPIC_MODEL, ANTHROPIC_BASE_URL.
//! let model = AnthropicModel::builder()
//!     .with_api_key("sk-ant-...")
//!     .with_model("claude-sonnet-4-5")
//!     .build()?;
//! let mut registry = ToolRegistry::new();
//! registry.register(GetWeatherTool)?;
//!
//! let agent = ToolLoop::new(model, registry);
//! let mut conversation = vec![Message::system("Be brief."), Message::user("Weather in Lisbon?")];
//! match agent.run(&mut conversation).await.status {
//!     LoopStatus::Answered(reply) => println!("{}", reply.text.unwrap_or_default()),
//!     other => eprintln!("stopped: {other:?}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Errors, retries and timeouts
//!
//! As for the [OpenAI-compatible model](crate::model::openai#errors): a 4xx other than 408 and
//! 429 is [`ModelError::Refused`] with the message of Anthropic's error body; 408, 429, 5xx
//! (529 `overloaded_error` included), timeouts and connection failures are retried with
//! backoff, or after the server's `retry-after`, then [`ModelError::Unavailable`]; an `error`
//! event mid-stream, or a stream cut before `message_stop`, is `Unavailable` too, and a call
//! whose block did not stop never runs. An answer that is only a refusal
//! (`stop_reason: "refusal"`, no content) is `Refused`.

#![cfg(feature = "anthropic")]

mod client;
mod config;
mod sse;
mod wire;

use std::fmt;

pub use config::{
    AnthropicBuilder, ANTHROPIC_BASE_URL, DEFAULT_API_VERSION, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT, ENV_API_KEY, ENV_BASE_URL, ENV_MODEL,
};
pub use wire::UNREADABLE_ARGUMENTS_KEY;

use crate::describe::Dialect;
use crate::model::http::HttpClient;
use crate::model::{ChatModel, ChatRequest, ChatResponse, ChatStream, ModelError, ModelFuture};

/// A chat model over Anthropic's Messages API. Cheap to clone: clones share one connection
/// pool.
#[derive(Clone)]
pub struct AnthropicModel {
    client: HttpClient,
    endpoint: reqwest::Url,
    base_url: String,
    model: String,
    max_tokens: u32,
    strict: bool,
}

impl AnthropicModel {
    /// A builder; an [API key](AnthropicBuilder::with_api_key) and a
    /// [model](AnthropicBuilder::with_model) are required.
    pub fn builder() -> AnthropicBuilder {
        AnthropicBuilder::new()
    }

    /// A model configured from the environment: `ANTHROPIC_API_KEY` and `ANTHROPIC_MODEL`
    /// (required), `ANTHROPIC_BASE_URL` (default [`ANTHROPIC_BASE_URL`]).
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming the variable that is missing, or another
    /// [`ModelError`] when a value is not usable.
    pub fn from_env() -> Result<Self, ModelError> {
        AnthropicBuilder::from_env()?.build()
    }

    /// The base URL, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }
}

impl ChatModel for AnthropicModel {
    /// [`Dialect::AnthropicStrict`] when built [strict](AnthropicBuilder::with_strict), else
    /// [`Dialect::Anthropic`].
    fn dialect(&self) -> Dialect {
        if self.strict {
            Dialect::AnthropicStrict
        } else {
            Dialect::Anthropic
        }
    }

    fn description(&self) -> String {
        format!(
            "Anthropic model {} at {}{}",
            self.model,
            self.base_url,
            if self.strict { " (strict)" } else { "" }
        )
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async move {
            let body = wire::request(&self.model, self.max_tokens, request, false, self.strict);
            self.complete(&body).await.map(ChatResponse::new)
        })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        let body = wire::request(&self.model, self.max_tokens, request, true, self.strict);
        Some(self.stream(body))
    }
}

impl fmt::Debug for AnthropicModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicModel")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &"<redacted>")
            .field("timeout", &self.client.timeout)
            .field("max_retries", &self.client.retry.max_retries)
            .field("strict", &self.strict)
            .finish_non_exhaustive()
    }
}
