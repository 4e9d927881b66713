//! The model over HTTP: a provider's body sent, whole or streamed, through the shared client,
//! with its retries, timeouts and errors.

use std::fmt;

use crate::describe::Dialect;
use crate::model::http::{event_stream, is_json, Endpoints, HttpClient, Opened};
use crate::model::http::{Provider, SseParser};
use crate::model::{ChatModel, ChatRequest, ChatResponse, ChatStream, ModelError, ModelFuture};

/// A chat model over a provider's HTTP API: [`OpenAiCompatibleModel`], [`AnthropicModel`] or
/// [`GeminiModel`]. Each is built the same way ([`builder`](Self::builder) or
/// [`from_env`](Self::from_env)), retries and times out the same way, and fails with the same
/// [`ModelError`]s; only its wire format is its own.
///
/// Cheap to clone: clones share one connection pool.
///
/// [`OpenAiCompatibleModel`]: crate::model::openai::OpenAiCompatibleModel
/// [`AnthropicModel`]: crate::model::anthropic::AnthropicModel
/// [`GeminiModel`]: crate::model::gemini::GeminiModel
#[derive(Clone)]
pub struct HttpModel<P> {
    pub(crate) client: HttpClient,
    pub(crate) endpoints: Endpoints,
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub(crate) has_api_key: bool,
    pub(crate) provider: P,
}

impl<P: Provider> HttpModel<P> {
    /// The base URL, as given without a trailing `/` (`http://localhost:11434/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model's name as the server knows it.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Sends `body` and reads the whole answer, retrying what is worth it.
    async fn complete(&self, body: &P::Body<'_>) -> Result<ChatResponse, ModelError> {
        self.client
            .with_retries(|| async move {
                let request = self.client.http.post(self.endpoints.whole.clone());
                let response = self
                    .client
                    .send(request.json(body), true, P::ERRORS)
                    .await?;
                let bytes = self.client.read_whole(response).await?;
                Ok(P::reply(&bytes)?)
            })
            .await
    }

    /// Opens a stream for `body`: its events, or a whole answer when the server does not
    /// stream. Retried until the first byte.
    async fn open_stream(&self, body: &P::Body<'_>) -> Result<Opened, ModelError> {
        self.client
            .with_retries(|| async move {
                let request = self.client.http.post(self.endpoints.stream.clone());
                let response = self
                    .client
                    .send(request.json(body), false, P::ERRORS)
                    .await?;
                if is_json(&response) {
                    let bytes = self.client.read_whole(response).await?;
                    return Ok(Opened::Whole(P::unstreamed_reply(&bytes)?));
                }
                Ok(Opened::Events(response))
            })
            .await
    }
}

impl<P: Provider> ChatModel for HttpModel<P> {
    /// The provider's dialect: strict when built `with_strict(true)` (OpenAI, Anthropic);
    /// for Gemini, its JSON Schema dialect on `v1beta` and its OpenAPI subset on `v1`.
    fn dialect(&self) -> Dialect {
        self.provider.dialect()
    }

    fn description(&self) -> String {
        let strict = matches!(
            self.dialect(),
            Dialect::OpenAiStrict | Dialect::AnthropicStrict
        );
        let mode = if strict { " (strict)" } else { "" };
        format!(
            "{} model {} at {}{mode}",
            P::NAME,
            self.model,
            self.base_url
        )
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async move {
            let body = self.provider.body(&self.model, request, false);
            self.complete(&body).await
        })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        let body = self.provider.body(&self.model, request, true);
        let open = move || async move { self.open_stream(&body).await };
        Some(event_stream(
            &self.client,
            open,
            SseParser::<P::Assembler>::default(),
        ))
    }
}

impl<P: Provider> fmt::Debug for HttpModel<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpModel")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.has_api_key.then_some("<redacted>"))
            .field("timeout", &self.client.timeout)
            .field("max_retries", &self.client.retry.max_retries)
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}
