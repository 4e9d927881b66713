//! A [`ChatModel`] over HTTP for every server that speaks OpenAI's Chat Completions API:
//! OpenAI itself, and local servers such as Ollama, vLLM and llama.cpp.
//!
//! [`OpenAiCompatibleModel`] sends `POST {base URL}/chat/completions`, whole
//! ([`ChatModel::chat`]) or streamed as server-sent events ([`ChatModel::chat_stream`], which the
//! [`ToolLoop`](crate::run::ToolLoop) uses by default, starting each tool call as soon as it is
//! complete in the stream). It needs the `openai` feature, on by default.
//!
//! | server | base URL | API key |
//! |---|---|---|
//! | OpenAI | `https://api.openai.com/v1` | required |
//! | Ollama | `http://localhost:11434/v1` | none needed |
//! | vLLM (`vllm serve MODEL`) | `http://localhost:8000/v1` | only if started with `--api-key` |
//! | llama.cpp server (`llama-server`) | `http://localhost:8080/v1` | only if started with `--api-key` |
//!
//! The model must support tool calling on that server (Ollama: a model with tool support,
//! such as `llama3.1` or `qwen2.5`; vLLM: started with `--enable-auto-tool-choice` and a
//! `--tool-call-parser`; llama.cpp: started with `--jinja`).
//!
//! # Examples
//!
//! ```no_run
//! use tool_sdk::model::openai::OpenAiCompatibleModel;
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
//! // A local Ollama; for OpenAI: with_base_url("https://api.openai.com/v1") and with_api_key(...).
//! let model = OpenAiCompatibleModel::builder()
//!     .with_base_url("http://localhost:11434/v1")
//!     .with_model("qwen2.5")
//!     .build()?;
//! let mut registry = ToolRegistry::new();
//! registry.register(GetWeatherTool)?;
//!
//! let agent = ToolLoop::new(model, registry);
//! let mut conversation = vec![Message::user("What's the weather in Lisbon?")];
//! match agent.run(&mut conversation).await.status {
//!     LoopStatus::Answered(reply) => println!("{}", reply.text.unwrap_or_default()),
//!     LoopStatus::ModelFailed(error) => eprintln!("the model failed: {error}"),
//!     other => eprintln!("stopped: {other:?}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! Every failure is a [`ModelError`]:
//!
//! - [`ModelError::Refused`]: the server answered with a 4xx status other than 408 and 429
//!   (a wrong key, an unknown model, a request it rejects), with the message it gave, taken
//!   from its JSON error body. Not retried: the same request would be refused again.
//! - [`ModelError::Unavailable`]: the server could not be reached, timed out, or kept
//!   answering 408, 429 or 5xx after the retries; or a stream broke off or reported an error.
//! - [`ModelError::Malformed`]: the answer could not be read as a Chat Completions answer
//!   (saying where), or a tool call in it has no name.
//!
//! # Retries and timeouts
//!
//! A request answered with 408, 429 or 5xx, or that failed to connect or timed out, is tried
//! again up to [`max_retries`](OpenAiCompatibleBuilder::with_max_retries) times (default
//! [`DEFAULT_MAX_RETRIES`]), after an exponential backoff with jitter, or after the time the
//! server asks for in `Retry-After` (seconds) or `retry-after-ms`, capped by
//! [`max_retry_after`](OpenAiCompatibleBuilder::with_max_retry_after). A stream is retried only
//! until its first byte: once part of a reply arrived, a failure ends it.
//!
//! The [`timeout`](OpenAiCompatibleBuilder::with_timeout) (default [`DEFAULT_TIMEOUT`]) bounds each
//! attempt of a whole answer; for a stream, the wait for the answer to start and each wait
//! between two pieces of it, so a long reply that keeps coming is never cut.

#![cfg(feature = "openai")]

mod client;
mod config;
mod media;
mod sse;
mod wire;

use std::fmt;

use crate::describe::Dialect;
use crate::model::http::HttpClient;
use crate::model::{ChatModel, ChatRequest, ChatResponse, ChatStream, ModelError, ModelFuture};

pub use config::{
    OpenAiCompatibleBuilder, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_TIMEOUT, ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, OPENAI_BASE_URL,
};
pub use media::MediaFallback;

/// A chat model served over OpenAI's Chat Completions API. See the
/// [module documentation](self) for servers, errors, retries and timeouts.
///
/// Cheap to clone: clones share one connection pool.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::openai::OpenAiCompatibleModel;
///
/// let model = OpenAiCompatibleModel::builder()
///     .with_base_url("http://localhost:8000/v1/") // vLLM
///     .with_model("Qwen/Qwen2.5-7B-Instruct")
///     .with_timeout(Duration::from_secs(60))
///     .with_max_retries(3)
///     .build()?;
/// assert_eq!(model.base_url(), "http://localhost:8000/v1");
/// assert_eq!(model.model(), "Qwen/Qwen2.5-7B-Instruct");
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiCompatibleModel {
    client: HttpClient,
    endpoint: reqwest::Url,
    base_url: String,
    model: String,
    has_api_key: bool,
    strict: bool,
    media: MediaFallback,
}

impl OpenAiCompatibleModel {
    /// A builder; [`base_url`](OpenAiCompatibleBuilder::with_base_url) and
    /// [`model`](OpenAiCompatibleBuilder::with_model) are required.
    pub fn builder() -> OpenAiCompatibleBuilder {
        OpenAiCompatibleBuilder::new()
    }

    /// A model configured from the environment: `OPENAI_BASE_URL` (default
    /// `https://api.openai.com/v1`), `OPENAI_MODEL` (required) and `OPENAI_API_KEY` (required
    /// for OpenAI's own API, optional for other servers). See
    /// [`OpenAiCompatibleBuilder::from_env`] to change other settings too.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming the variable that is missing, or another
    /// [`ModelError`] when a value is not usable.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// // OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5
    /// let model = tool_sdk::model::openai::OpenAiCompatibleModel::from_env()?;
    /// println!("using {} at {}", model.model(), model.base_url());
    /// # Ok::<(), tool_sdk::model::ModelError>(())
    /// ```
    pub fn from_env() -> Result<Self, ModelError> {
        OpenAiCompatibleBuilder::from_env()?.build()
    }

    /// The base URL, without a trailing `/` (`http://localhost:11434/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model's name as the server knows it.
    pub fn model(&self) -> &str {
        &self.model
    }
}

impl ChatModel for OpenAiCompatibleModel {
    /// [`Dialect::OpenAiStrict`] when built [strict](OpenAiCompatibleBuilder::with_strict),
    /// else [`Dialect::OpenAi`].
    fn dialect(&self) -> Dialect {
        if self.strict {
            Dialect::OpenAiStrict
        } else {
            Dialect::OpenAi
        }
    }

    fn description(&self) -> String {
        format!(
            "OpenAI-compatible model {} at {}{}",
            self.model,
            self.base_url,
            if self.strict { " (strict)" } else { "" }
        )
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async move {
            let body = wire::request(&self.model, request, false, self.strict, self.media);
            self.complete(&body).await.map(ChatResponse::new)
        })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        Some(self.stream(wire::request(
            &self.model,
            request,
            true,
            self.strict,
            self.media,
        )))
    }
}

impl fmt::Debug for OpenAiCompatibleModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatibleModel")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.has_api_key.then_some("<redacted>"))
            .field("timeout", &self.client.timeout)
            .field("max_retries", &self.client.retry.max_retries)
            .field("strict", &self.strict)
            .field("media", &self.media)
            .finish_non_exhaustive()
    }
}
