//! A streamed answer read as it comes: the request opened (with retries until its first
//! byte), then each chunk of bytes handed to the provider's event parser.

use std::collections::VecDeque;
use std::future::Future;

use futures_util::stream;
use reqwest::Response;

use crate::model::http::client::{describe, HttpClient};
use crate::model::http::sse::{Assemble, SseParser};
use crate::model::{ChatDelta, ChatResponse, ChatStream, ModelError};

/// What a request for a stream got.
pub(crate) enum Opened {
    /// Server-sent events to read.
    Events(Response),
    /// A whole answer: the server does not stream.
    Whole(ChatResponse),
}

/// The stream of `open`'s answer: its events read by `parser` as they arrive.
pub(crate) fn event_stream<'a, A, F, Fut>(
    client: &'a HttpClient,
    open: F,
    parser: SseParser<A>,
) -> ChatStream<'a>
where
    A: Assemble + Send + 'a,
    F: FnOnce() -> Fut + Send + 'a,
    Fut: Future<Output = Result<Opened, ModelError>> + Send + 'a,
{
    let state = StreamState {
        client,
        open: Some(open),
        response: None,
        parser,
        pending: VecDeque::new(),
        done: false,
    };
    Box::pin(stream::unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.pending.pop_front() {
                return Some((item, state));
            }
            if state.done {
                return None;
            }
            state.advance().await;
        }
    }))
}

/// A stream being read: the request not sent yet, or the response being read.
struct StreamState<'a, A, F> {
    client: &'a HttpClient,
    open: Option<F>,
    response: Option<Response>,
    parser: SseParser<A>,
    pending: VecDeque<Result<ChatDelta, ModelError>>,
    done: bool,
}

impl<A, F, Fut> StreamState<'_, A, F>
where
    A: Assemble,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Opened, ModelError>>,
{
    /// Sends the request, or reads the next bytes: adds what they give to `pending`, or ends.
    async fn advance(&mut self) {
        if let Some(open) = self.open.take() {
            match open().await {
                Ok(Opened::Events(response)) => self.response = Some(response),
                Ok(Opened::Whole(ChatResponse { message, usage })) => {
                    let pieces = message
                        .text
                        .map(ChatDelta::Text)
                        .into_iter()
                        .chain(message.tool_calls.into_iter().map(ChatDelta::ToolCall))
                        .chain(usage.map(ChatDelta::Usage));
                    self.pending.extend(pieces.map(Ok));
                    self.done = true;
                }
                Err(error) => self.fail(error),
            }
            return;
        }
        let Some(response) = self.response.as_mut() else {
            self.done = true;
            return;
        };
        let timeout = self.client.timeout;
        let mut deltas = Vec::new();
        let read = match tokio::time::timeout(timeout, response.chunk()).await {
            Err(_) => Err(ModelError::Unavailable(format!(
                "the stream sent nothing for {timeout:?}"
            ))),
            Ok(Err(error)) => Err(ModelError::Unavailable(format!(
                "the stream broke off: {}",
                describe(&error)
            ))),
            Ok(Ok(Some(bytes))) => self.parser.push(&bytes, &mut deltas).map(|complete| {
                if complete {
                    self.finish();
                }
            }),
            Ok(Ok(None)) => {
                self.finish();
                self.parser.end(&mut deltas)
            }
        };
        self.pending.extend(deltas.into_iter().map(Ok));
        if let Err(error) = read {
            self.fail(error);
        }
    }

    fn fail(&mut self, error: ModelError) {
        self.pending.push_back(Err(error));
        self.finish();
    }

    fn finish(&mut self) {
        self.done = true;
        self.response = None;
    }
}
