//! One HTTP attempt and what its failure means; attempts repeated as the retry policy says;
//! bodies read within bounds.

use std::future::Future;
use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use reqwest::{RequestBuilder, Response, StatusCode};

use crate::model::http::retry::{retry_after, RetryPolicy};
use crate::model::http::sse::MAX_STREAM_BYTES;
use crate::model::ModelError;

/// Most bytes of an error body read for its message.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// How one attempt failed.
#[derive(Debug)]
pub(crate) enum Failure {
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

/// A provider's HTTP client: the connection pool, how long an attempt may take, and how
/// failed attempts are retried.
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    pub(crate) http: reqwest::Client,
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
}

/// A `reqwest` client builder whose TLS can start: reqwest is built without a crypto provider
/// of its own, so ring is installed as the process default first, unless the application
/// installed a provider already (then that one is used, and this changes nothing).
pub(crate) fn client_builder() -> reqwest::ClientBuilder {
    // Refused when a provider is installed: that provider stays, which is what is wanted.
    // ring, chosen for a light build, has no post-quantum key exchange (newer rustls marks
    // it deprecated for that): an application that wants one installs aws-lc-rs's provider
    // first, and it is used.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}

/// How a provider's error bodies are read: their message, and the wait they ask for before a
/// retry (Gemini's `RetryInfo`), which counts when no `Retry-After` header gives one.
#[derive(Debug, Clone, Copy)]
pub struct ErrorBody {
    pub(crate) message: fn(&[u8]) -> Option<String>,
    pub(crate) retry_delay: fn(&[u8]) -> Option<Duration>,
}

impl ErrorBody {
    /// Error bodies whose message is read as [`error_message`](super::body::error_message)
    /// reads it, and that ask for no wait of their own.
    #[cfg(any(feature = "openai", feature = "anthropic"))]
    pub(crate) const MESSAGE: Self = Self {
        message: super::body::error_message,
        retry_delay: |_| None,
    };
}

impl HttpClient {
    /// Runs `attempt` until it succeeds, fails for good, or the retries are used up.
    pub(crate) async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, ModelError>
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

    /// One attempt: the response when its status is a success, else the failure it means,
    /// read from the error body as `errors` says. `whole` bounds the whole exchange by the
    /// timeout; else (a stream) only its start.
    pub(crate) async fn send(
        &self,
        request: RequestBuilder,
        whole: bool,
        errors: ErrorBody,
    ) -> Result<Response, Failure> {
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
        let header_asked = retry_after(response.headers());
        let (message, body_asked) = match self.read_body(response, MAX_ERROR_BYTES).await {
            Ok((body, _)) => ((errors.message)(&body), (errors.retry_delay)(&body)),
            Err(_) => (None, None),
        };
        let asked = header_asked.or(body_asked);
        let message =
            message.unwrap_or_else(|| status.canonical_reason().unwrap_or("no message").to_owned());
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

    /// Reads a whole answer's bytes, refused past [`MAX_STREAM_BYTES`].
    pub(crate) async fn read_whole(&self, response: Response) -> Result<Vec<u8>, Failure> {
        let (bytes, cut) = self.read_body(response, MAX_STREAM_BYTES).await?;
        if cut {
            return Err(Failure::Fatal(ModelError::Malformed(format!(
                "the answer is larger than {MAX_STREAM_BYTES} bytes"
            ))));
        }
        Ok(bytes)
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

    pub(crate) fn timed_out(&self) -> String {
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

/// Whether a response is a JSON document (not a stream of events).
pub(crate) fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"))
}

/// An error with its chain of causes (reqwest's own message says little: "error sending
/// request"; its causes say "connection refused").
pub(crate) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
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
    use super::*;

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
