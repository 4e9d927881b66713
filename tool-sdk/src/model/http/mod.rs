//! The HTTP core every provider's model shares: [`HttpModel`] over a [`Provider`], set up by
//! one [`HttpModelBuilder`]; one attempt and what its failure means, retries with backoff and
//! the server's `Retry-After`, bodies read within bounds, and streamed answers read as
//! server-sent events. A provider brings only its wire format.
//!
//! # Errors
//!
//! Every failure is a [`ModelError`](crate::model::ModelError):
//!
//! - [`Refused`](crate::model::ModelError::Refused): the server answered with a 4xx status
//!   other than 408 and 429 (a wrong key, an unknown model, a request it rejects), with the
//!   message it gave, taken from its JSON error body. Not retried: the same request would be
//!   refused again.
//! - [`Unavailable`](crate::model::ModelError::Unavailable): the server could not be reached,
//!   timed out, or kept answering 408, 429 or 5xx after the retries; or a stream broke off or
//!   reported an error.
//! - [`Malformed`](crate::model::ModelError::Malformed): the answer could not be read in the
//!   provider's format (saying where), or a tool call in it has no name.
//!
//! # Retries and timeouts
//!
//! A request answered with 408, 429 or 5xx, or that failed to connect or timed out, is tried
//! again up to [`with_max_retries`](HttpModelBuilder::with_max_retries) times (default
//! [`DEFAULT_MAX_RETRIES`]), after an exponential backoff with jitter, or after the time the
//! server asks for (`Retry-After` in seconds, `retry-after-ms`, or Gemini's `RetryInfo`),
//! capped by [`with_max_retry_after`](HttpModelBuilder::with_max_retry_after). A stream is
//! retried only until its first byte: once part of a reply arrived, a failure ends it.
//!
//! The [`with_timeout`](HttpModelBuilder::with_timeout) (default [`DEFAULT_TIMEOUT`]) bounds
//! each attempt of a whole answer; for a stream, the wait for the answer to start and each wait
//! between two pieces of it, so a long reply that keeps coming is never cut.

mod arguments;
mod body;
mod builder;
mod client;
mod config;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod ids;
mod model;
mod provider;
mod retry;
#[cfg(test)]
pub(crate) mod samples;
mod sse;
mod stream;
mod usage;

#[cfg(any(feature = "anthropic", feature = "gemini"))]
pub(crate) use arguments::arguments_object;
pub use arguments::UNREADABLE_ARGUMENTS_KEY;
#[cfg(any(feature = "openai", feature = "gemini", test))]
pub(crate) use body::error_message;
pub(crate) use body::{decode, no_name};
pub use builder::{
    HttpModelBuilder, DEFAULT_CONNECT_TIMEOUT, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF,
    DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER, DEFAULT_TIMEOUT,
};
pub(crate) use client::{client_builder, describe, is_json, ErrorBody, HttpClient};
pub(crate) use config::{client, env_var, headers, BaseUrl};
#[cfg(any(feature = "openai", feature = "anthropic"))]
pub(crate) use ids::{call_ids, result_id};
pub use model::HttpModel;
pub use provider::Provider;
pub(crate) use provider::{is_vendor_api, sealed, Endpoints, Env, KeyHeader};
pub(crate) use retry::RetryPolicy;
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(crate) use sse::mid_stream_error;
#[cfg(all(test, any(feature = "openai", feature = "anthropic")))]
pub(crate) use sse::parse_bytewise;
#[cfg(all(test, any(feature = "openai", feature = "gemini")))]
pub(crate) use sse::parse_pieces;
pub(crate) use sse::{Assemble, Budget, Event, SseParser};
pub(crate) use stream::{event_stream, Opened};
pub(crate) use usage::{counted, StreamedUsage, UsageFields};
