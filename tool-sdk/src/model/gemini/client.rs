//! Sending a `generateContent` request, whole or streamed, through the shared HTTP client.

use crate::model::gemini::sse::{self, StreamParser};
use crate::model::gemini::wire::{self, GenerateContentResponse, Request};
use crate::model::gemini::GeminiModel;
use crate::model::http::{decode, event_stream, is_json, Opened};
use crate::model::{AssistantMessage, ChatStream, ModelError};

impl GeminiModel {
    /// Sends `body` to `generateContent` and reads the whole answer, retrying what is worth it.
    pub(super) async fn complete(
        &self,
        body: &Request<'_>,
    ) -> Result<AssistantMessage, ModelError> {
        self.client
            .with_retries(|| async move {
                let request = self.client.http.post(self.generate_url.clone()).json(body);
                let response = self
                    .client
                    .send_reading(request, true, wire::ERRORS)
                    .await?;
                let bytes = self.client.read_whole(response).await?;
                let answer: GenerateContentResponse = decode(&bytes, "the answer")?;
                Ok(wire::reply(answer)?)
            })
            .await
    }

    /// Sends `body` to `streamGenerateContent?alt=sse` and reads the answer's chunks as they
    /// come.
    pub(super) fn stream<'a>(&'a self, body: Request<'a>) -> ChatStream<'a> {
        let open = move || async move { self.open_stream(&body).await };
        event_stream(&self.client, open, StreamParser::default())
    }

    async fn open_stream(&self, body: &Request<'_>) -> Result<Opened, ModelError> {
        self.client
            .with_retries(|| async move {
                let request = self.client.http.post(self.stream_url.clone()).json(body);
                let response = self
                    .client
                    .send_reading(request, false, wire::ERRORS)
                    .await?;
                if is_json(&response) {
                    let bytes = self.client.read_whole(response).await?;
                    return Ok(Opened::Whole(sse::whole(&bytes)?));
                }
                Ok(Opened::Events(response))
            })
            .await
    }
}
