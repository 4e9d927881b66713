//! A [`ChatModel`](crate::model::ChatModel) over HTTP for every server that speaks OpenAI's Chat Completions API:
//! OpenAI itself, and local servers such as Ollama, vLLM and llama.cpp.
//!
//! [`OpenAiCompatibleModel`] sends `POST {base URL}/chat/completions`, whole
//! ([`ChatModel::chat`](crate::model::ChatModel::chat)) or streamed as server-sent events ([`ChatModel::chat_stream`](crate::model::ChatModel::chat_stream), which the
//! [`ToolLoop`](crate::run::ToolLoop) uses by default, starting each tool call as soon as it is
//! complete in the stream). It needs the `openai` feature.
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
//! // A local Ollama; for OpenAI, leave the base URL out and give with_api_key(...).
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
//! # Errors, retries and timeouts
//!
//! As for every [HTTP model](crate::model::http#errors): a 4xx other than 408 and 429 is
//! [`ModelError::Refused`] with the message of the JSON
//! error body; 408, 429, 5xx, timeouts and connection failures are retried with backoff, or
//! after the server's `Retry-After` or `retry-after-ms`. A tool call without a name is
//! [`Malformed`](crate::model::ModelError::Malformed).

#![cfg(feature = "openai")]

mod api;
mod convert;
mod embed;
mod media;
mod sse;

use crate::describe::Dialect;
use crate::model::http::{counted, KeyHeader};
use crate::model::http::{decode, HttpModelBuilder};
use crate::model::http::{sealed::ProviderApi, BaseUrl, Endpoints, Env, ErrorBody, HttpModel};
use crate::model::{ChatRequest, ChatResponse, ModelError};

pub use embed::{OpenAiEmbedder, DEFAULT_EMBED_BATCH, EMBEDDING_MODEL_ENV};
pub use media::MediaFallback;

/// The base URL of OpenAI's own API, where a builder starts.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// A chat model served over OpenAI's Chat Completions API. See the
/// [module documentation](self) for servers, and [`HttpModel`] for what every HTTP model does.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::describe::Dialect;
/// use tool_sdk::model::openai::OpenAiCompatibleModel;
/// use tool_sdk::ChatModel;
///
/// let model = OpenAiCompatibleModel::builder()
///     .with_base_url("http://localhost:8000/v1/") // vLLM
///     .with_model("Qwen/Qwen2.5-7B-Instruct")
///     .with_timeout(Duration::from_secs(60))
///     .with_max_retries(3)
///     .with_strict(true)
///     .build()?;
/// assert_eq!(model.base_url(), "http://localhost:8000/v1");
/// assert_eq!(model.model(), "Qwen/Qwen2.5-7B-Instruct");
/// assert_eq!(model.dialect(), Dialect::OpenAiStrict);
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
pub type OpenAiCompatibleModel = HttpModel<OpenAiCompatible>;

/// OpenAI's Chat Completions API, as spoken by OpenAI and by local servers: the
/// [`Provider`](crate::model::http::Provider) of an [`OpenAiCompatibleModel`], with its own
/// settings, [`with_strict`](HttpModelBuilder::with_strict) and
/// [`with_media_fallback`](HttpModelBuilder::with_media_fallback).
#[derive(Debug, Clone, Default)]
pub struct OpenAiCompatible {
    strict: bool,
    media: MediaFallback,
    /// `true` when streams must not ask for their usage.
    no_stream_usage: bool,
}

impl HttpModelBuilder<OpenAiCompatible> {
    /// Strict function calling (default off): every tool's parameters are sent lowered to the
    /// OpenAI strict dialect ([`Dialect::OpenAiStrict`]) with `"strict": true`, so the model's
    /// arguments always match the schema. An optional parameter becomes required and nullable
    /// there; the `null` a model sends for it decodes as left out. A tool strict mode cannot
    /// describe (a map with free keys, say) stops a run before the first request, naming the
    /// tool, the place and the rule.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.provider.strict = strict;
        self
    }

    /// How tool results' images and files are sent (default [`MediaFallback::Placeholder`]):
    /// Chat Completions tool messages take text only.
    pub fn with_media_fallback(mut self, fallback: MediaFallback) -> Self {
        self.provider.media = fallback;
        self
    }

    /// Whether a streamed request asks for its usage (default on): `stream_options:
    /// {"include_usage": true}`, answered by OpenAI, vLLM, Ollama and most servers with a last
    /// chunk holding the tokens, which token and cost budgets count. Turn it off for a server
    /// that refuses the option; its streamed replies then report no usage.
    ///
    /// ```
    /// use tool_sdk::model::openai::OpenAiCompatibleModel;
    ///
    /// let model = OpenAiCompatibleModel::builder()
    ///     .with_base_url("http://localhost:8080/v1")
    ///     .with_model("llama3")
    ///     .with_stream_usage(false)
    ///     .build();
    /// assert!(model.is_ok());
    /// ```
    pub fn with_stream_usage(mut self, on: bool) -> Self {
        self.provider.no_stream_usage = !on;
        self
    }
}

impl ProviderApi for OpenAiCompatible {
    const NAME: &'static str = "OpenAI-compatible";
    const ENV: Env = Env {
        base_url: "OPENAI_BASE_URL",
        api_key: "OPENAI_API_KEY",
        model: "OPENAI_MODEL",
        model_hint: "set it to the model's name as the server knows it, such as gpt-4o-mini, or qwen2.5 on Ollama",
        key_hint: "OpenAI's API needs a key; for another server set OPENAI_BASE_URL, such as http://localhost:11434/v1 for Ollama",
    };
    const BASE_URL: &'static str = OPENAI_BASE_URL;
    const KEY_HEADER: KeyHeader = KeyHeader::Bearer;
    const ENDPOINT_HINT: &'static str =
        "give the base URL, without /chat/completions (such as http://localhost:11434/v1)";
    const ERRORS: ErrorBody = ErrorBody::MESSAGE;
    type Body<'a> = convert::Request<'a>;
    type Assembler = sse::Assembler;

    fn is_endpoint(path: &str) -> bool {
        path.ends_with("/chat/completions")
    }

    fn endpoints(base: &BaseUrl, _model: &str) -> Result<Endpoints, ModelError> {
        base.endpoint(["chat", "completions"]).map(Endpoints::one)
    }

    fn dialect(&self) -> Dialect {
        if self.strict {
            Dialect::OpenAiStrict
        } else {
            Dialect::OpenAi
        }
    }

    fn body<'a>(
        &'a self,
        model: &'a str,
        request: ChatRequest<'a>,
        stream: bool,
    ) -> convert::Request<'a> {
        let usage = !self.no_stream_usage;
        convert::request(model, request, stream, usage, self.strict, self.media)
    }

    fn reply(bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let mut completion: api::Completion = decode(bytes, "the answer")?;
        let usage = completion.usage.take();
        let reply = ChatResponse::new(convert::reply(completion)?);
        Ok(match counted(usage.as_ref(), api::USAGE) {
            Some(usage) => reply.with_usage(usage),
            None => reply,
        })
    }
}
