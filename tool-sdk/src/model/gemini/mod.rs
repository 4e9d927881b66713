//! A [`ChatModel`](crate::model::ChatModel) over Google's Gemini API, in its own wire format (`generateContent`).
//!
//! [`GeminiModel`] sends `POST {base URL}/models/{model}:generateContent`, whole
//! ([`ChatModel::chat`](crate::model::ChatModel::chat)), or `:streamGenerateContent?alt=sse`, streamed as server-sent events
//! ([`ChatModel::chat_stream`](crate::model::ChatModel::chat_stream), which the [`ToolLoop`](crate::run::ToolLoop) uses by default,
//! starting each function call as soon as its chunk arrives). The key goes in the
//! `x-goog-api-key` header; the base URL is Google's
//! (`https://generativelanguage.googleapis.com/v1beta`) unless another is set. It needs the
//! `gemini` feature.
//!
//! On the `v1beta` API (the default), the model speaks [`Dialect::GeminiJsonSchema`]: the loop
//! offers it every tool with its parameters as JSON Schema, sent in `parametersJsonSchema`
//! (`$ref`s kept, unions of types, maps). On the `v1` API, or built
//! [`with_json_schema(false)`](HttpModelBuilder::with_json_schema), it speaks [`Dialect::Gemini`]:
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
//!   ([`UNREADABLE_ARGUMENTS_KEY`](crate::model::http::UNREADABLE_ARGUMENTS_KEY)), so
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
//! Every failure is a [`ModelError`], as for every [HTTP model](crate::model::http#errors):
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
//! A wait Gemini asks for in the `google.rpc.RetryInfo` of an error body (its way on a 429)
//! counts as a `Retry-After` does.

#![cfg(feature = "gemini")]

mod api;
mod convert;
mod sse;

use reqwest::header::HeaderName;

use crate::describe::Dialect;
use crate::model::http::counted;
use crate::model::http::{decode, sealed::ProviderApi, BaseUrl, Endpoints, Env, ErrorBody};
use crate::model::http::{HttpModel, HttpModelBuilder, KeyHeader};
use crate::model::{ChatRequest, ChatResponse, ModelError};

/// The base URL of Google's Gemini API, where a builder starts.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// A chat model served over Gemini's `generateContent` API. See the
/// [module documentation](self) for the wire mapping, and [`HttpModel`] for what every HTTP
/// model does.
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
pub type GeminiModel = HttpModel<Gemini>;

/// Google's Gemini API: the [`Provider`](crate::model::http::Provider) of a [`GeminiModel`],
/// with its own setting, [`with_json_schema`](HttpModelBuilder::with_json_schema).
#[derive(Debug, Clone, Default)]
pub struct Gemini {
    /// Set by the builder, else settled from the base URL when the model is built.
    json_schema: Option<bool>,
}

impl HttpModelBuilder<Gemini> {
    /// Whether tools are declared with `parametersJsonSchema` (JSON Schema,
    /// [`Dialect::GeminiJsonSchema`]) or with `parameters` (the OpenAPI subset,
    /// [`Dialect::Gemini`]). By default JSON Schema, which the `v1beta` API (Google's default
    /// base URL) takes; the OpenAPI subset when the base URL is the `v1` API, which has no
    /// `parametersJsonSchema`, or for a server that only knows `parameters`.
    pub fn with_json_schema(mut self, json_schema: bool) -> Self {
        self.provider.json_schema = Some(json_schema);
        self
    }
}

impl ProviderApi for Gemini {
    const NAME: &'static str = "Gemini";
    const ENV: Env = Env {
        base_url: "GEMINI_BASE_URL",
        api_key: "GEMINI_API_KEY",
        model: "GEMINI_MODEL",
        model_hint: "set it to the model's name, such as gemini-2.5-flash",
        key_hint: "set it to a Gemini API key, from https://aistudio.google.com/apikey",
    };
    const BASE_URL: &'static str = GEMINI_BASE_URL;
    const KEY_HEADER: KeyHeader = KeyHeader::Named(HeaderName::from_static("x-goog-api-key"));
    const ENDPOINT_HINT: &'static str = "give the base URL, without /models/... (such as https://generativelanguage.googleapis.com/v1beta)";
    const ERRORS: ErrorBody = convert::ERRORS;
    type Body<'a> = convert::Request<'a>;
    type Assembler = sse::Assembler;

    fn is_endpoint(path: &str) -> bool {
        path.ends_with("/models") || path.contains("/models/") || path.contains(':')
    }

    /// `generateContent` and `streamGenerateContent?alt=sse` of `model`: a name goes under
    /// `models/`, a path (`tunedModels/NAME`) as it is.
    fn endpoints(base: &BaseUrl, model: &str) -> Result<Endpoints, ModelError> {
        let path = if model.contains('/') {
            model.to_owned()
        } else {
            format!("models/{model}")
        };
        let url = |method: &str| {
            let (parents, name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
            let last = format!("{name}:{method}");
            base.endpoint(
                parents
                    .split('/')
                    .filter(|segment| !segment.is_empty())
                    .chain([last.as_str()]),
            )
        };
        let whole = url("generateContent")?;
        let mut stream = url("streamGenerateContent")?;
        stream.query_pairs_mut().append_pair("alt", "sse");
        Ok(Endpoints { whole, stream })
    }

    /// The `v1` API declares tools with `parameters` only.
    fn settle(&mut self, base: &BaseUrl) {
        let stable_api = base.url.path().trim_end_matches('/').ends_with("/v1");
        self.json_schema.get_or_insert(!stable_api);
    }

    fn dialect(&self) -> Dialect {
        if self.json_schema.unwrap_or(true) {
            Dialect::GeminiJsonSchema
        } else {
            Dialect::Gemini
        }
    }

    fn body<'a>(
        &'a self,
        _model: &'a str,
        request: ChatRequest<'a>,
        _stream: bool,
    ) -> convert::Request<'a> {
        convert::request(request, self.dialect())
    }

    fn reply(bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let mut answer: api::GenerateContentResponse = decode(bytes, "the answer")?;
        let usage = answer.usage_metadata.take();
        let reply = ChatResponse::new(convert::reply(answer)?);
        Ok(match counted(usage.as_ref(), api::USAGE) {
            Some(usage) => reply.with_usage(usage),
            None => reply,
        })
    }

    fn unstreamed_reply(bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        sse::whole(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_and_paths_make_the_endpoints() {
        let endpoint = |model: &str| {
            GeminiModel::builder()
                .with_base_url("https://gateway.example/gemini/v1beta?tenant=t")
                .with_model(model)
                .build()
                .map(|model| {
                    let Endpoints { whole, stream } = model.endpoints;
                    (whole.to_string(), stream.to_string())
                })
        };
        assert_eq!(
            endpoint("gemini-2.5-pro").unwrap(),
            (
                "https://gateway.example/gemini/v1beta/models/gemini-2.5-pro:generateContent?tenant=t"
                    .to_owned(),
                "https://gateway.example/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent?tenant=t&alt=sse"
                    .to_owned()
            )
        );
        assert_eq!(
            endpoint("models/gemini-2.5-pro").unwrap(),
            endpoint("gemini-2.5-pro").unwrap()
        );
        assert_eq!(
            endpoint("tunedModels/my-model").unwrap().0,
            "https://gateway.example/gemini/v1beta/tunedModels/my-model:generateContent?tenant=t"
        );
        assert_eq!(
            endpoint("a model?#").unwrap().0,
            "https://gateway.example/gemini/v1beta/models/a%20model%3F%23:generateContent?tenant=t",
            "a name is one path segment, escaped"
        );
        let model = GeminiModel::builder()
            .with_base_url("https://gateway.example/v1beta")
            .with_model("m")
            .build()
            .unwrap();
        assert!(!model.has_api_key, "a gateway may add the key itself");
    }

    /// The API's version is read from the base URL's path, not from its query.
    #[test]
    fn the_v1_api_is_known_by_its_path() {
        let dialect = |url: &str| {
            let model = GeminiModel::builder().with_base_url(url).with_model("m");
            crate::model::ChatModel::dialect(&model.build().unwrap())
        };
        assert_eq!(dialect("https://gw.example/v1?tenant=t"), Dialect::Gemini);
        assert_eq!(dialect("https://gw.example/v1/"), Dialect::Gemini);
        assert_eq!(
            dialect("https://gw.example/v1beta?tenant=t"),
            Dialect::GeminiJsonSchema
        );
    }
}
