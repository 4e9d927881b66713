//! Sending a Messages request, whole or streamed, through the shared HTTP client.

use crate::model::anthropic::sse::StreamParser;
use crate::model::anthropic::wire::{self, Answer};
use crate::model::anthropic::AnthropicModel;
use crate::model::http::{event_stream, is_json, Opened};
use crate::model::{AssistantMessage, ChatStream, ModelError};

impl AnthropicModel {
    /// Sends `body` and reads the whole answer, retrying what is worth it.
    pub(super) async fn complete(
        &self,
        body: &wire::Request<'_>,
    ) -> Result<AssistantMessage, ModelError> {
        self.client
            .with_retries(|| async move {
                let request = self.client.http.post(self.endpoint.clone()).json(body);
                let response = self.client.send(request, true, wire::error_message).await?;
                let bytes = self.client.read_whole(response).await?;
                let answer: Answer = wire::decode(&bytes, "the answer")?;
                Ok(wire::reply(answer)?)
            })
            .await
    }

    /// Sends `body` (asking for a stream) and reads the answer's pieces as they come.
    pub(super) fn stream<'a>(&'a self, body: wire::Request<'a>) -> ChatStream<'a> {
        let open = move || async move { self.open_stream(&body).await };
        event_stream(&self.client, open, StreamParser::default())
    }

    async fn open_stream(&self, body: &wire::Request<'_>) -> Result<Opened, ModelError> {
        self.client
            .with_retries(|| async move {
                let request = self.client.http.post(self.endpoint.clone()).json(body);
                let response = self
                    .client
                    .send(request, false, wire::error_message)
                    .await?;
                if is_json(&response) {
                    let bytes = self.client.read_whole(response).await?;
                    let answer: Answer = wire::decode(&bytes, "the answer")?;
                    return Ok(Opened::Whole(wire::reply(answer)?));
                }
                Ok(Opened::Events(response))
            })
            .await
    }
}
