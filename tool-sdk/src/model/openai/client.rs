//! Sending a request: retries with backoff, timeouts, what each failure means, and reading a
//! whole or streamed answer.

use std::collections::VecDeque;
use std::future::Future;
use std::time::Duration;

use futures_util::stream;
use reqwest::header::{HeaderMap, CONTENT_TYPE, RETRY_AFTER};
use reqwest::{Response, StatusCode};

use crate::model::openai::sse::{StreamParser, MAX_STREAM_BYTES};
use crate::model::openai::wire::{self, Completion};
use crate::model::openai::OpenAiCompatibleModel;
use crate::model::{AssistantMessage, ChatDelta, ChatStream, ModelError};

/// Most bytes of an error body read for its message.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// When and how often a failed request is tried again.
#[derive(Debug, Clone, Copy)]
pub(super) struct RetryPolicy {
    pub(super) max_retries: u32,
    pub(super) initial_backoff: Duration,
    pub(super) max_backoff: Duration,
    pub(super) max_retry_after: Duration,
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0 for the first): what the server asked for,
    /// capped, else the exponential backoff less up to a quarter at random, so clients that
    /// failed together do not all come back together.
    fn delay(&self, retry: u32, asked: Option<Duration>) -> Duration {
        if let Some(asked) = asked {
            return asked.min(self.max_retry_after);
        }
        let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
        let backoff = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        let random = f64::from(getrandom::u32().unwrap_or(0)) / f64::from(u32::MAX);
        backoff.mul_f64(1.0 - 0.25 * random)
    }
}

/// How one attempt failed.
#[derive(Debug)]
enum Failure {
    /// Worth another attempt (`asked`: the wait the server asked for).
    Retry {
        reason: String,
        asked: Option<Duration>,
    },
    /// Final.
    Fatal(ModelError),
}

impl From<ModelError> for Failure {
    fn from(error: ModelError) -> Self {
        Self::Fatal(error)
    }
}

/// What a request for a stream got.
enum Opened {
    /// Server-sent events to read.
    Events(Response),
    /// A whole answer: the server does not stream.
    Whole(AssistantMessage),
}

impl OpenAiCompatibleModel {
    /// Sends `body` and reads the whole answer, retrying what is worth it.
    pub(super) async fn complete(
        &self,
        body: &wire::Request<'_>,
    ) -> Result<AssistantMessage, ModelError> {
        self.with_retries(|| async move {
            let response = self.send(body, true).await?;
            self.read_whole(response).await
        })
        .await
    }

    /// Sends `body` (asking for a stream) and reads the answer's pieces as they come.
    pub(super) fn stream<'a>(&'a self, body: wire::Request<'a>) -> ChatStream<'a> {
        let state = StreamState {
            model: self,
            body: Some(body),
            response: None,
            parser: StreamParser::default(),
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

    async fn open_stream(&self, body: &wire::Request<'_>) -> Result<Opened, ModelError> {
        self.with_retries(|| async move {
            let response = self.send(body, false).await?;
            let is_json = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| value.trim_start().starts_with("application/json"));
            if is_json {
                return self.read_whole(response).await.map(Opened::Whole);
            }
            Ok(Opened::Events(response))
        })
        .await
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries are used up.
    async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, ModelError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let mut retry = 0;
        loop {
            let (reason, asked) = match attempt().await {
                Ok(value) => return Ok(value),
                Err(Failure::Fatal(error)) => return Err(error),
                Err(Failure::Retry { reason, asked }) => (reason, asked),
            };
            if retry >= self.retry.max_retries {
                return Err(ModelError::Unavailable(match retry {
                    0 => reason,
                    _ => format!("{reason} (after {} attempts)", retry + 1),
                }));
            }
            let delay = self.retry.delay(retry, asked);
            tracing::warn!(
                attempt = retry + 1,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                reason = %reason,
                "the model call failed; trying again"
            );
            tokio::time::sleep(delay).await;
            retry += 1;
        }
    }

    /// One attempt: the response when its status is a success, else the failure it means.
    async fn send(&self, body: &wire::Request<'_>, whole: bool) -> Result<Response, Failure> {
        let request = self.http.post(self.endpoint.clone()).json(body);
        let sent = if whole {
            request.timeout(self.timeout).send().await
        } else {
            // A stream may go on for long: only the wait for it to start is bounded here.
            tokio::time::timeout(self.timeout, request.send())
                .await
                .map_err(|_| Failure::Retry {
                    reason: self.timed_out(),
                    asked: None,
                })?
        };
        let response = sent.map_err(|error| self.transport_failure(&error))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let asked = retry_after(response.headers());
        let message = match self.read_body(response, MAX_ERROR_BYTES).await {
            Ok((body, _)) => wire::error_message(&body),
            Err(_) => None,
        }
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("no message").to_owned());
        if status == StatusCode::REQUEST_TIMEOUT
            || status == StatusCode::TOO_MANY_REQUESTS
            || status.is_server_error()
        {
            return Err(Failure::Retry {
                reason: format!("HTTP {}: {message}", status.as_u16()),
                asked,
            });
        }
        if status.is_client_error() {
            return Err(Failure::Fatal(ModelError::Refused {
                status: status.as_u16(),
                message,
            }));
        }
        Err(Failure::Fatal(ModelError::Unavailable(format!(
            "unexpected HTTP status {}: {message}",
            status.as_u16()
        ))))
    }

    /// Reads and decodes a whole answer.
    async fn read_whole(&self, response: Response) -> Result<AssistantMessage, Failure> {
        let (bytes, cut) = self.read_body(response, MAX_STREAM_BYTES).await?;
        if cut {
            return Err(Failure::Fatal(ModelError::Malformed(format!(
                "the answer is larger than {MAX_STREAM_BYTES} bytes"
            ))));
        }
        let completion: Completion = wire::decode(&bytes, "the answer")?;
        Ok(wire::reply(completion)?)
    }

    /// Reads a body, up to `limit` bytes (`true` when there was more), each wait bounded by
    /// the timeout.
    async fn read_body(
        &self,
        mut response: Response,
        limit: usize,
    ) -> Result<(Vec<u8>, bool), Failure> {
        let mut body = Vec::new();
        loop {
            let chunk = tokio::time::timeout(self.timeout, response.chunk())
                .await
                .map_err(|_| Failure::Retry {
                    reason: self.timed_out(),
                    asked: None,
                })?
                .map_err(|error| self.transport_failure(&error))?;
            let Some(chunk) = chunk else {
                return Ok((body, false));
            };
            if body.len() + chunk.len() > limit {
                body.extend_from_slice(&chunk[..limit - body.len()]);
                return Ok((body, true));
            }
            body.extend_from_slice(&chunk);
        }
    }

    fn timed_out(&self) -> String {
        format!("no answer within {:?}", self.timeout)
    }

    /// What a failure to send or receive means: timeouts and connection failures are worth
    /// another attempt; a request that cannot be built or redirects without end is not.
    fn transport_failure(&self, error: &reqwest::Error) -> Failure {
        if error.is_timeout() {
            return Failure::Retry {
                reason: self.timed_out(),
                asked: None,
            };
        }
        if error.is_builder() || error.is_redirect() {
            return Failure::Fatal(ModelError::Unavailable(describe(error)));
        }
        Failure::Retry {
            reason: describe(error),
            asked: None,
        }
    }
}

/// A stream being read: the request not sent yet, or the response being read.
struct StreamState<'a> {
    model: &'a OpenAiCompatibleModel,
    body: Option<wire::Request<'a>>,
    response: Option<Response>,
    parser: StreamParser,
    pending: VecDeque<Result<ChatDelta, ModelError>>,
    done: bool,
}

impl StreamState<'_> {
    /// Sends the request, or reads the next bytes: adds what they give to `pending`, or ends.
    async fn advance(&mut self) {
        if let Some(body) = self.body.take() {
            match self.model.open_stream(&body).await {
                Ok(Opened::Events(response)) => self.response = Some(response),
                Ok(Opened::Whole(reply)) => {
                    let pieces = reply
                        .text
                        .map(ChatDelta::Text)
                        .into_iter()
                        .chain(reply.tool_calls.into_iter().map(ChatDelta::ToolCall));
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
        let timeout = self.model.timeout;
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

/// The wait a server asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds. A
/// `Retry-After` date is not read: the backoff applies.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    if let Some(millis) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(millis / 1000.0).ok();
    }
    number(RETRY_AFTER.as_str()).and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
}

/// An error with its chain of causes (reqwest's own message says little: "error sending
/// request"; its causes say "connection refused").
pub(super) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(10),
        }
    }

    #[test]
    fn the_backoff_doubles_with_jitter_up_to_its_cap() {
        let policy = policy();
        for (retry, full) in [
            (0, 100),
            (1, 200),
            (2, 400),
            (3, 800),
            (4, 1000),
            (40, 1000),
        ] {
            let full = Duration::from_millis(full);
            for _ in 0..20 {
                let delay = policy.delay(retry, None);
                assert!(
                    delay <= full && delay >= full.mul_f64(0.75),
                    "{retry}: {delay:?}"
                );
            }
        }
    }

    #[test]
    fn the_wait_a_server_asks_for_is_honoured_up_to_the_cap() {
        let policy = policy();
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(10)
        );
    }

    #[test]
    fn retry_after_headers_are_read() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from_static(value));
            }
            map
        };
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")])),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "0.5")])),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7"), ("retry-after-ms", "250")])),
            Some(Duration::from_millis(250)),
            "the finer header wins"
        );
        for unread in ["Wed, 21 Oct 2015 07:28:00 GMT", "-1", "NaN", ""] {
            assert_eq!(
                retry_after(&headers(&[("retry-after", unread)])),
                None,
                "{unread}"
            );
        }
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn causes_are_described_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error sending request")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = Outer(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "connection refused",
        ));
        assert_eq!(
            describe(&error),
            "error sending request: connection refused"
        );
    }
}
