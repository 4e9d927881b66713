//! The three test servers the models run against, behind one [`Server`] trait: where each one
//! is, how a model reaches it in a conversation of its own, the words it answers errors with,
//! and what it recorded of the bodies it received.
//!
//! - OpenAI-compatible and Anthropic: fakellm (PyPI) behind `tests/servers/validate_proxy.py`,
//!   which checks every body against the official `openai` and `anthropic` packages' request
//!   types, answering from `tests/fakellm/openai.yaml`;
//! - Gemini: `tests/servers/gemini_server.py`, which checks every body against
//!   `google-genai`'s types, answering from `tests/gemini/gemini.yaml`.
//!
//! `./scripts/test.sh` installs and starts them and sets `TOOL_SDK_FAKELLM_URL` and
//! `TOOL_SDK_GEMINI_URL`; these tests fail without them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tool_sdk::model::http::{HttpModel, HttpModelBuilder, Provider};
use tool_sdk_tests::plain_http;

/// The header the servers count a conversation's turns by.
pub(crate) const CONVERSATION_HEADER: &str = "X-Fakellm-Conversation-Id";

/// A test server of one provider's API.
pub(crate) trait Server {
    /// The API it speaks.
    type Provider: Provider;
    /// Starts the ids of its conversations.
    const NAME: &'static str;
    /// The model it is asked for.
    const MODEL: &'static str;
    /// How the ids of its calls begin; `None` when its calls come without ids.
    const CALL_ID_PREFIX: Option<&'static str>;
    /// Whether its replies of calls also hold text (fakellm's Messages API writes some before
    /// them).
    const TEXT_WITH_CALLS: bool;
    /// Its message on a 429, as its API words it.
    const RATE_LIMITED: &'static str;
    /// Its message on the 503s of a server that stays down.
    const DOWN: &'static str;
    /// Its message when it refuses the `refused` scenario's request (a 400).
    const REFUSED: &'static str;
    /// Whether it answers a streamed request with the error status of its rule; fakellm
    /// answers every streamed request with 200 and a stream.
    const STREAMS_ERRORS: bool;
    /// The path of its API under a host: a base URL is `http://HOST{API_PATH}`.
    const API_PATH: &'static str;

    /// Its base URL.
    fn base_url() -> String;

    /// The bodies it received in `conversation`, in order, each one checked against the
    /// provider's own types on the way.
    fn bodies_sent(conversation: &str) -> Vec<Value>;

    /// What the provider's own shape of the requests of `scenario`, in `conversation`, must
    /// hold, beyond what every provider's run shows.
    fn check_sent(scenario: Scenario, conversation: &str);
}

/// The scenarios of the contract whose requests a provider checks in its own shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scenario {
    /// Three rounds, a payment allowed, a fourth round.
    TripAllowed,
    /// The same, the payment denied with "Not this month.".
    TripDenied,
    /// Two calls of one streamed reply, run together.
    Parallel,
    /// A 5xx and a 429, then answers.
    Flaky,
    /// A request refused with a 400.
    Refused,
    /// The gated, compensating saga.
    Saga,
    /// A result holding an image and a PDF.
    Chart,
}

/// A model on `S`, and the id of its conversation, one no other conversation of any test run
/// has (the servers count turns per conversation).
pub(crate) struct Session<S: Server> {
    builder: HttpModelBuilder<S::Provider>,
    /// The conversation's id.
    pub(crate) conversation: String,
}

impl<S: Server> Session<S> {
    /// A conversation of its own for `test`.
    pub(crate) fn new(test: &str) -> Self {
        let conversation = conversation_id(S::NAME, test);
        let builder = HttpModel::<S::Provider>::builder()
            .with_base_url(S::base_url())
            .with_api_key("not-a-real-key")
            .with_model(S::MODEL)
            .with_timeout(Duration::from_secs(30))
            .with_retry_backoff(Duration::from_millis(10), Duration::from_millis(50))
            .with_header(CONVERSATION_HEADER, &conversation);
        Self {
            builder,
            conversation,
        }
    }

    /// A builder of a model in the conversation: the server's base URL, a key, its model,
    /// quick retries.
    pub(crate) fn builder(&self) -> HttpModelBuilder<S::Provider> {
        self.builder.clone()
    }

    /// The model, built as it is.
    pub(crate) fn model(test: &str) -> HttpModel<S::Provider> {
        Self::new(test).builder.build().expect("the model builds")
    }

    /// The bodies the server received in this conversation.
    pub(crate) fn bodies_sent(&self) -> Vec<Value> {
        S::bodies_sent(&self.conversation)
    }
}

/// An id no other conversation of any test run has.
pub(crate) fn conversation_id(server: &str, test: &str) -> String {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{server}-{test}-{}-{nanos}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    )
}

/// The URL in `variable`; a test that needs it fails, saying how to start `what`.
pub(crate) fn server_url(variable: &str, what: &str) -> String {
    match std::env::var(variable) {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "{variable} is not set: these tests need {what}, which ./scripts/test.sh installs \
             and starts; run ./scripts/test.sh"
        ),
    }
}

/// The base URL (up to `/v1`) of the validating proxy before fakellm.
pub(crate) fn fakellm_url() -> String {
    server_url("TOOL_SDK_FAKELLM_URL", "the fakellm server")
}

/// The JSON the server at `base_url` answers to `GET path`.
pub(crate) fn get_json(base_url: &str, path: &str) -> Value {
    serde_json::from_str(&plain_http::request(base_url, "GET", path)).expect("JSON")
}

/// The bodies of `conversation` the validating proxy let through to fakellm.
pub(crate) fn proxy_bodies(conversation: &str) -> Vec<Value> {
    let listing = get_json(
        &fakellm_url(),
        &format!("/_proxy/requests?conversation={conversation}"),
    );
    listing["requests"].as_array().cloned().unwrap_or_default()
}
