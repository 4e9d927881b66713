//! What a provider is to the HTTP model: where its requests go and with which key, the body it
//! takes for a conversation, and how its answers, whole or streamed, are read. Everything else
//! (settings, retries, timeouts, streaming, errors) is the [`HttpModel`](super::HttpModel)'s,
//! the same for every provider.

use std::fmt;

use reqwest::header::{HeaderName, AUTHORIZATION};
use reqwest::Url;

use crate::describe::Dialect;
use crate::model::http::{Assemble, BaseUrl, ErrorBody};
use crate::model::{ChatRequest, ChatResponse, ModelError};

/// An API an [`HttpModel`](super::HttpModel) speaks, with the settings of its own:
/// [`OpenAiCompatible`](crate::model::openai::OpenAiCompatible),
/// [`Anthropic`](crate::model::anthropic::Anthropic) or
/// [`Gemini`](crate::model::gemini::Gemini). Sealed: the HTTP model knows each one's wire
/// format.
pub trait Provider:
    sealed::ProviderApi + Clone + fmt::Debug + Default + Send + Sync + 'static
{
}

impl<P: sealed::ProviderApi + Clone + fmt::Debug + Default + Send + Sync + 'static> Provider for P {}

/// The environment variables a provider's model is read from, and what to tell a user who
/// left one out.
#[derive(Debug, Clone, Copy)]
pub struct Env {
    pub(crate) base_url: &'static str,
    pub(crate) api_key: &'static str,
    pub(crate) model: &'static str,
    /// What to set the model's variable to.
    pub(crate) model_hint: &'static str,
    /// What to set the key's variable to.
    pub(crate) key_hint: &'static str,
}

/// The header a provider's API key goes in.
#[derive(Debug, Clone)]
pub enum KeyHeader {
    /// `Authorization: Bearer KEY`.
    Bearer,
    /// A header of the API's own, holding the key as it is (made with the `const`
    /// `HeaderName::from_static`, so a name that is not a valid header fails to compile).
    Named(HeaderName),
}

impl KeyHeader {
    /// The header holding `key`.
    pub(crate) fn holding(&self, key: &str) -> (HeaderName, String) {
        match self {
            Self::Bearer => (AUTHORIZATION, format!("Bearer {key}")),
            Self::Named(name) => (name.clone(), key.to_owned()),
        }
    }
}

/// Whether `base` is on the host of the provider's own API (whose base URL is `vendor`), which
/// takes no request without a key.
pub(crate) fn is_vendor_api(base: &Url, vendor: &str) -> bool {
    Url::parse(vendor).is_ok_and(|vendor| vendor.host_str() == base.host_str())
}

/// Where a model's requests go: a whole answer, and a streamed one.
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub(crate) whole: Url,
    pub(crate) stream: Url,
}

impl Endpoints {
    /// The same endpoint for both (the body asks for a stream).
    #[cfg(any(feature = "openai", feature = "anthropic"))]
    pub(crate) fn one(url: Url) -> Self {
        Self {
            whole: url.clone(),
            stream: url,
        }
    }
}

pub(crate) mod sealed {
    use super::*;

    /// What a provider supplies; in a private module, so that no other crate can name it or
    /// implement [`Provider`](super::Provider). (Through a `P: Provider` bound its items can
    /// still be reached; they are not part of the documented API.)
    pub trait ProviderApi: Sized {
        /// How its models are named in their description (`OpenAI-compatible`).
        const NAME: &'static str;
        /// The variables [`from_env`](crate::model::http::HttpModelBuilder::from_env) reads.
        const ENV: Env;
        /// The base URL of the provider's own API, which a builder starts with; a base URL on
        /// its host needs a key.
        const BASE_URL: &'static str;
        /// The header the API key goes in.
        const KEY_HEADER: KeyHeader;
        /// Why a base URL that names an endpoint is refused, and what to give instead.
        const ENDPOINT_HINT: &'static str;
        /// How its error bodies are read.
        const ERRORS: ErrorBody;

        /// The body of a request.
        type Body<'a>: serde::Serialize + Send + Sync
        where
            Self: 'a;
        /// What it makes of a streamed answer's events.
        type Assembler: Assemble + Default + Send;

        /// Whether a base URL's path (without a trailing `/`) already names an endpoint.
        fn is_endpoint(path: &str) -> bool;
        /// Where the requests for `model` go under `base`.
        fn endpoints(base: &BaseUrl, model: &str) -> Result<Endpoints, ModelError>;
        /// Headers of its own, sent before the caller's.
        fn headers(&self) -> Vec<(String, String)> {
            Vec::new()
        }
        /// Settles what the base URL decides (Gemini's dialect), once, when the model is built.
        fn settle(&mut self, _base: &BaseUrl) {}
        /// The schema dialect its tools are lowered to.
        fn dialect(&self) -> Dialect;
        /// The body for `request` to `model`; `stream` asks for server-sent events.
        fn body<'a>(
            &'a self,
            model: &'a str,
            request: ChatRequest<'a>,
            stream: bool,
        ) -> Self::Body<'a>;
        /// The reply in a whole answer's bytes, with the usage it reports.
        fn reply(bytes: &[u8]) -> Result<ChatResponse, ModelError>;
        /// The reply in a stream request's answer that came as JSON, not as events.
        fn unstreamed_reply(bytes: &[u8]) -> Result<ChatResponse, ModelError> {
            Self::reply(bytes)
        }
    }
}
