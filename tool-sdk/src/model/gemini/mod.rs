//! A [`ChatModel`] over Google's Gemini API, in its own wire format (`generateContent`).
//!
//! [`GeminiModel`] sends `POST {base URL}/models/{model}:generateContent`, whole
//! ([`ChatModel::chat`]), or `:streamGenerateContent?alt=sse`, streamed as server-sent events
//! ([`ChatModel::chat_stream`], which the [`ToolLoop`](crate::run::ToolLoop) uses by default,
//! starting each function call as soon as its chunk arrives). The key goes in the
//! `x-goog-api-key` header; the base URL is Google's
//! (`https://generativelanguage.googleapis.com/v1beta`) unless another is set. It needs the
//! `gemini` feature, on by default.
//!
//! On the `v1beta` API (the default), the model speaks [`Dialect::GeminiJsonSchema`]: the loop
//! offers it every tool with its parameters as JSON Schema, sent in `parametersJsonSchema`
//! (`$ref`s kept, unions of types, maps). On the `v1` API, or built
//! [`with_json_schema(false)`](GeminiBuilder::with_json_schema), it speaks [`Dialect::Gemini`]:
//! parameters in Gemini's OpenAPI subset (`$ref`s inlined, `nullable` for `null` unions), sent
//! in `parameters`. Either is checked before the first request.
//!
//! # Examples
//!
//! ```no_run
//! use tool_sdk::model::gemini::GeminiModel;
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
//! let model = GeminiModel::builder()
//!     .with_api_key(std::env::var("GEMINI_API_KEY")?)
//!     .with_model("gemini-2.5-flash")
//!     .build()?;
//! // Or from GEMINI_API_KEY, GEMINI_MODEL and GEMINI_BASE_URL (optional):
//! // let model = GeminiModel::from_env()?;
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
//! # The conversation on the wire
//!
//! - System messages, wherever they stand, are joined into `systemInstruction`.
//! - A user message is a `user` content with a text part; a reply a `model` content with its
//!   text and a `functionCall` part per call, whose `args` are the call's arguments as a JSON
//!   object. Arguments that are not one (text that is not JSON, an array) cannot be `args`:
//!   they go as the text they are under the key `unreadable_arguments`
//!   ([`UNREADABLE_ARGUMENTS_KEY`](crate::model::wire::gemini::UNREADABLE_ARGUMENTS_KEY)), so
//!   the model reads what it sent beside the error its result carries. Blank arguments are
//!   `{}`.
//! - The results of a reply are one `user` content of `functionResponse` parts, in the order
//!   of the calls (Gemini gives calls no id and matches responses by place and name; a call
//!   that has an id sends it back on its response). A result is `{"result": text}`, or the
//!   result's JSON object itself; one that failed, was denied or rolled back is
//!   `{"error": text}`, as `google-genai`'s own function calling writes them.
//! - Empty text is left out, since Gemini refuses it; a tool without properties is declared
//!   without parameters, since Gemini refuses an `OBJECT` with none.
//!
//! Gemini 3 models send a `thoughtSignature` with their calls and ask for it back; this
//! model does not keep it, so it suits the models that do not require it (Gemini 2.x).
//!
//! # Errors
//!
//! Every failure is a [`ModelError`]:
//!
//! - [`ModelError::Refused`]: the server answered with a 4xx other than 408 and 429 (a wrong
//!   key, an unknown model, a request it rejects), with the `error.message` of its body; not
//!   retried. Also, with status 0, a reply Gemini withheld: a prompt blocked
//!   (`promptFeedback.blockReason`), a reply stopped by `SAFETY`, `RECITATION`,
//!   `PROHIBITED_CONTENT` and every other `finishReason` but `STOP` and `MAX_TOKENS`, or one
//!   that reached `MAX_TOKENS` before saying anything. Nothing of such a reply runs; a stream
//!   that already handed out text ends with the error.
//! - [`ModelError::Unavailable`]: the server could not be reached, timed out, or kept
//!   answering 408, 429 or 5xx after the retries; or a stream broke off, ended without a
//!   `finishReason`, or reported an error.
//! - [`ModelError::Malformed`]: the answer could not be read (saying where), a call in it has
//!   no name, or Gemini could not use the call the model wrote (`MALFORMED_FUNCTION_CALL`,
//!   `UNEXPECTED_TOOL_CALL`, `TOO_MANY_TOOL_CALLS`).
//!
//! A reply cut at `MAX_TOKENS` with text or calls in it is the reply, as the model wrote it.
//!
//! # Retries and timeouts
//!
//! A request answered with 408, 429 or 5xx, or that failed to connect or timed out, is tried
//! again up to [`max_retries`](GeminiBuilder::with_max_retries) times (default
//! [`DEFAULT_MAX_RETRIES`]), after an exponential backoff with jitter, or after the time the
//! server asks for: in `Retry-After`, else in the `google.rpc.RetryInfo` of its error body
//! (Gemini's way on a 429), capped by [`max_retry_after`](GeminiBuilder::with_max_retry_after).
//! A stream is retried only until its first byte. The
//! [`timeout`](GeminiBuilder::with_timeout) (default [`DEFAULT_TIMEOUT`]) bounds each attempt
//! of a whole answer; for a stream, the wait for it to start and each wait between two pieces.

#![cfg(feature = "gemini")]

mod client;
mod config;
mod sse;
mod wire;

use std::fmt;

use crate::describe::Dialect;
use crate::model::http::HttpClient;
use crate::model::{ChatModel, ChatRequest, ChatResponse, ChatStream, ModelError, ModelFuture};

pub use config::{
    GeminiBuilder, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_TIMEOUT, ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, GEMINI_BASE_URL,
};

/// A chat model served over Gemini's `generateContent` API. See the
/// [module documentation](self) for the wire mapping, errors, retries and timeouts.
///
/// Cheap to clone: clones share one connection pool.
///
/// # Examples
///
/// ```
/// use tool_sdk::describe::Dialect;
/// use tool_sdk::model::gemini::GeminiModel;
/// use tool_sdk::ChatModel;
///
/// let model = GeminiModel::builder()
///     .with_api_key("AIza...")
///     .with_model("models/gemini-2.5-flash")
///     .build()?;
/// assert_eq!(model.model(), "models/gemini-2.5-flash");
/// assert_eq!(model.dialect(), Dialect::GeminiJsonSchema);
/// assert_eq!(
///     model.description(),
///     "Gemini model models/gemini-2.5-flash at https://generativelanguage.googleapis.com/v1beta"
/// );
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct GeminiModel {
    client: HttpClient,
    generate_url: reqwest::Url,
    stream_url: reqwest::Url,
    base_url: String,
    model: String,
    has_api_key: bool,
    /// [`Dialect::GeminiJsonSchema`] or [`Dialect::Gemini`].
    dialect: Dialect,
}

impl GeminiModel {
    /// A builder; [`model`](GeminiBuilder::with_model) is required, and Google's API needs
    /// [`api_key`](GeminiBuilder::with_api_key).
    pub fn builder() -> GeminiBuilder {
        GeminiBuilder::new()
    }

    /// A model configured from the environment: `GEMINI_API_KEY` (required), `GEMINI_MODEL`
    /// (required) and `GEMINI_BASE_URL` (default Google's). See [`GeminiBuilder::from_env`] to
    /// change other settings too.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming the variable that is missing, or another
    /// [`ModelError`] when a value is not usable.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// // GEMINI_API_KEY=AIza... GEMINI_MODEL=gemini-2.5-flash
    /// let model = tool_sdk::model::gemini::GeminiModel::from_env()?;
    /// println!("using {} at {}", model.model(), model.base_url());
    /// # Ok::<(), tool_sdk::model::ModelError>(())
    /// ```
    pub fn from_env() -> Result<Self, ModelError> {
        GeminiBuilder::from_env()?.build()
    }

    /// The base URL, without a trailing `/`
    /// (`https://generativelanguage.googleapis.com/v1beta`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model's name, as given (`gemini-2.5-flash`).
    pub fn model(&self) -> &str {
        &self.model
    }
}

impl ChatModel for GeminiModel {
    /// [`Dialect::GeminiJsonSchema`] (tools sent with `parametersJsonSchema`), unless the API is
    /// `v1` or the model was built [without it](GeminiBuilder::with_json_schema): then
    /// [`Dialect::Gemini`] (`parameters`, the OpenAPI subset).
    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn description(&self) -> String {
        format!("Gemini model {} at {}", self.model, self.base_url)
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async move {
            let body = wire::request(request, self.dialect);
            self.complete(&body).await.map(ChatResponse::new)
        })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        Some(self.stream(wire::request(request, self.dialect)))
    }
}

impl fmt::Debug for GeminiModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeminiModel")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.has_api_key.then_some("<redacted>"))
            .field("timeout", &self.client.timeout)
            .field("max_retries", &self.client.retry.max_retries)
            .finish_non_exhaustive()
    }
}
