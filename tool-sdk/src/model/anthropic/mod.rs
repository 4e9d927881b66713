//! A [`ChatModel`](crate::model::ChatModel) over Anthropic's Messages API.
//!
//! [`AnthropicModel`] sends `POST {base URL}/v1/messages` with `x-api-key` and
//! `anthropic-version`, whole ([`ChatModel::chat`](crate::model::ChatModel::chat)) or streamed as server-sent events
//! ([`ChatModel::chat_stream`](crate::model::ChatModel::chat_stream), which the [`ToolLoop`](crate::run::ToolLoop) uses by default:
//! each tool call is handed to the loop as soon as its `tool_use` block stops, while the rest
//! of the reply still arrives). It needs the `anthropic` feature.
//!
//! System messages become the `system` prompt; a reply's calls are `tool_use` blocks and their
//! results `tool_result` blocks in one user turn (a failed call's result with `is_error`); a
//! call the conversation holds without an id gets a stable generated one. Tools are sent with
//! their schemas in the [`Anthropic`](crate::describe::Dialect::Anthropic) dialect, or
//! [`AnthropicStrict`](crate::describe::Dialect::AnthropicStrict) with `"strict": true` when
//! built strict (`with_strict(true)` on its builder).
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
//! As for every [HTTP model](crate::model::http#errors): a 4xx other than 408 and
//! 429 is [`ModelError::Refused`] with the message of Anthropic's error body; 408, 429, 5xx
//! (529 `overloaded_error` included), timeouts and connection failures are retried with
//! backoff, or after the server's `retry-after`, then [`ModelError::Unavailable`]; an `error`
//! event mid-stream, or a stream cut before `message_stop`, is `Unavailable` too, and a call
//! whose block did not stop never runs. An answer that is only a refusal
//! (`stop_reason: "refusal"`, no content) is `Refused`.

#![cfg(feature = "anthropic")]

mod api;
mod convert;
mod sse;

use reqwest::header::HeaderName;

use crate::describe::Dialect;
use crate::model::http::counted;
use crate::model::http::{decode, sealed::ProviderApi, BaseUrl, Endpoints, Env, ErrorBody};
use crate::model::http::{HttpModel, HttpModelBuilder, KeyHeader};
use crate::model::{ChatRequest, ChatResponse, ModelError};

/// The base URL of Anthropic's API, where a builder starts; requests go to
/// `{base URL}/v1/messages`.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The API version sent in `anthropic-version` by default.
pub const DEFAULT_API_VERSION: &str = "2023-06-01";
/// The `max_tokens` of a request whose options set none: the API requires one.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A chat model over Anthropic's Messages API. See the [module documentation](self) for the
/// wire mapping, and [`HttpModel`] for what every HTTP model does.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::anthropic::AnthropicModel;
///
/// let model = AnthropicModel::builder()
///     .with_api_key("sk-ant-...")
///     .with_model("claude-sonnet-4-5")
///     .with_max_tokens(2048)
///     .with_timeout(Duration::from_secs(120))
///     .build()?;
/// assert_eq!(model.base_url(), "https://api.anthropic.com");
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
pub type AnthropicModel = HttpModel<Anthropic>;

/// Anthropic's Messages API: the [`Provider`](crate::model::http::Provider) of an
/// [`AnthropicModel`], with its own settings, [`with_version`](HttpModelBuilder::with_version),
/// [`with_max_tokens`](HttpModelBuilder::with_max_tokens) and
/// and `with_strict`.
#[derive(Debug, Clone)]
pub struct Anthropic {
    version: String,
    max_tokens: u32,
    strict: bool,
}

impl Default for Anthropic {
    fn default() -> Self {
        Self {
            version: DEFAULT_API_VERSION.to_owned(),
            max_tokens: DEFAULT_MAX_TOKENS,
            strict: false,
        }
    }
}

impl HttpModelBuilder<Anthropic> {
    /// The `anthropic-version` header (default [`DEFAULT_API_VERSION`]).
    pub fn with_version(mut self, version: impl Into<String>) -> Self {
        self.provider.version = version.into();
        self
    }

    /// The `max_tokens` of requests whose [`ChatOptions`](crate::model::ChatOptions) set none
    /// (default [`DEFAULT_MAX_TOKENS`]).
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.provider.max_tokens = tokens;
        self
    }

    /// Strict tool use (default off): every tool's schema is sent lowered to the Anthropic
    /// strict dialect ([`Dialect::AnthropicStrict`]) with `"strict": true`. A tool strict mode
    /// cannot describe stops a run before the first request, naming the tool, the place and
    /// the rule.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.provider.strict = strict;
        self
    }
}

impl ProviderApi for Anthropic {
    const NAME: &'static str = "Anthropic";
    const ENV: Env = Env {
        base_url: "ANTHROPIC_BASE_URL",
        api_key: "ANTHROPIC_API_KEY",
        model: "ANTHROPIC_MODEL",
        model_hint: "set it to the model's name, such as claude-sonnet-4-5",
        key_hint: "set it to an Anthropic API key (sk-ant-...)",
    };
    const BASE_URL: &'static str = ANTHROPIC_BASE_URL;
    const KEY_HEADER: KeyHeader = KeyHeader::Named(HeaderName::from_static("x-api-key"));
    const ENDPOINT_HINT: &'static str =
        "give the base URL, without /v1/messages (such as https://api.anthropic.com)";
    const ERRORS: ErrorBody = ErrorBody::MESSAGE;
    type Body<'a> = convert::Request<'a>;
    type Assembler = sse::Assembler;

    fn is_endpoint(path: &str) -> bool {
        path.ends_with("/messages")
    }

    fn endpoints(base: &BaseUrl, _model: &str) -> Result<Endpoints, ModelError> {
        base.endpoint(["v1", "messages"]).map(Endpoints::one)
    }

    fn headers(&self) -> Vec<(String, String)> {
        vec![(
            "anthropic-version".to_owned(),
            self.version.trim().to_owned(),
        )]
    }

    fn dialect(&self) -> Dialect {
        if self.strict {
            Dialect::AnthropicStrict
        } else {
            Dialect::Anthropic
        }
    }

    fn body<'a>(
        &'a self,
        model: &'a str,
        request: ChatRequest<'a>,
        stream: bool,
    ) -> convert::Request<'a> {
        convert::request(model, self.max_tokens, request, stream, self.strict)
    }

    fn reply(bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let mut answer: api::Answer = decode(bytes, "the answer")?;
        let usage = answer.usage.take();
        let reply = ChatResponse::new(convert::reply(answer)?);
        Ok(match counted(usage.as_ref(), api::USAGE) {
            Some(usage) => reply.with_usage(usage),
            None => reply,
        })
    }
}
