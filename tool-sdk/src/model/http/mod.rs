//! What the HTTP models share: one attempt and what its failure means, retries with backoff and
//! the server's `Retry-After`, bodies read within bounds, and streamed answers read as
//! server-sent events.

mod body;
mod client;
mod config;
mod ids;
mod retry;
mod sse;
mod stream;

pub(crate) use body::{decode, error_message};
pub(crate) use client::{client_builder, describe, is_json, ErrorBody, HttpClient};
pub(crate) use config::{client, env_var, headers, BaseUrl};
pub(crate) use ids::{call_ids, result_id};
pub(crate) use retry::RetryPolicy;
pub(crate) use sse::{mid_stream_error, too_large, Assemble, Event, SseParser, MAX_STREAM_BYTES};
pub(crate) use stream::{event_stream, Opened};
