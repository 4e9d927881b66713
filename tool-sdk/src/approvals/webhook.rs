//! A knock on the door: when a run starts waiting, a JSON post to a URL the application gives
//! (a chat's incoming webhook, an on-call tool), with a link to the run on the page. Sent in a
//! task of its own, so a slow or failing receiver never holds the run; tried a bounded number
//! of times; a post that never got through is reported.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::{StatusCode, Url};
use serde_json::{json, Value};

use crate::run::Observer;
use crate::store::PausedTurn;

/// How many times a post is tried unless told otherwise.
pub const DEFAULT_WEBHOOK_ATTEMPTS: u32 = 3;

/// How long one attempt may take unless told otherwise.
pub const DEFAULT_WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// What is told of a post that never got through: the run, and why.
type OnFailure = Arc<dyn Fn(&WebhookFailure) + Send + Sync>;

/// A post to a [`Webhook`] that never got through.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookFailure {
    /// The run that started waiting.
    pub run: String,
    /// The attempts made.
    pub attempts: u32,
    /// What the last attempt met: a status, or the error of the connection.
    pub reason: String,
}

/// Posts JSON to a URL each time a run starts waiting for a person (feature `webhook`): an
/// [`Observer`] to give the loop ([`ToolLoop::with_observer`](crate::run::ToolLoop::with_observer)).
///
/// The body: `{"event": "run.paused", "run": ..., "pause": ..., "link": ..., "awaiting":
/// [{"key", "tool", "arguments"}], "budget_reached": ...}`, with `link` the run on the page
/// ([`with_page`](Self::with_page)) and `budget_reached` only for a run whose budget is spent.
/// A post is sent in a task of its own: the run never waits for it. A connection that fails,
/// a timeout, a 408, a 429 or a 5xx is tried again, after 0.5 s, then 1 s, ..., up to
/// [`with_attempts`](Self::with_attempts) times in all; any other status is final. A post that
/// never got through is logged (`tracing`, at warn) and given to
/// [`with_on_failure`](Self::with_on_failure).
///
/// ```
/// use tool_sdk::approvals::Webhook;
/// use tool_sdk::run::ToolLoop;
/// use tool_sdk::{ScriptedModel, ToolRegistry};
///
/// let knock = Webhook::new("https://hooks.example.com/on-call")?
///     .with_page("https://agents.example.com/approvals/")
///     .with_on_failure(|failure| eprintln!("no one was told of {}: {}", failure.run, failure.reason));
/// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()).with_observer(knock);
/// # Ok::<(), tool_sdk::approvals::WebhookError>(())
/// ```
#[derive(Clone)]
pub struct Webhook {
    url: Url,
    page: Option<String>,
    attempts: u32,
    client: reqwest::Client,
    on_failure: Option<OnFailure>,
}

/// A webhook that cannot be set up: its URL, or its HTTP client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// Not an `http` or `https` URL.
    #[error("the webhook's URL `{url}` is not an http or https URL")]
    InvalidUrl {
        /// The URL given.
        url: String,
    },
    /// The HTTP client could not be built (the TLS set-up).
    #[error("the webhook's HTTP client cannot be built: {0}")]
    Client(String),
}

impl Webhook {
    /// Posts to `url` (`http` or `https`).
    pub fn new(url: &str) -> Result<Self, WebhookError> {
        let invalid = || WebhookError::InvalidUrl {
            url: url.to_owned(),
        };
        let parsed = Url::parse(url).map_err(|_| invalid())?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(invalid());
        }
        Ok(Self {
            url: parsed,
            page: None,
            attempts: DEFAULT_WEBHOOK_ATTEMPTS,
            client: client(DEFAULT_WEBHOOK_TIMEOUT)?,
            on_failure: None,
        })
    }

    /// The page's address ([`ApprovalPage`](crate::approvals::ApprovalPage)'s `url()`, or where
    /// the application mounts it): each post links to the run there.
    pub fn with_page(mut self, page: impl Into<String>) -> Self {
        self.page = Some(page.into());
        self
    }

    /// How many times a post is tried in all (default [`DEFAULT_WEBHOOK_ATTEMPTS`]; at least
    /// once).
    pub fn with_attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts.max(1);
        self
    }

    /// How long one attempt may take (default [`DEFAULT_WEBHOOK_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self, WebhookError> {
        self.client = client(timeout)?;
        Ok(self)
    }

    /// Told of each post that never got through.
    pub fn with_on_failure(
        mut self,
        report: impl Fn(&WebhookFailure) + Send + Sync + 'static,
    ) -> Self {
        self.on_failure = Some(Arc::new(report));
        self
    }

    /// The body posted for `turn`.
    fn body(&self, turn: &PausedTurn) -> Value {
        let awaiting: Vec<Value> = turn
            .calls()
            .filter(|pending| pending.awaiting)
            .map(|pending| {
                json!({
                    "key": pending.key,
                    "tool": pending.call.name,
                    "arguments": pending.call.arguments,
                })
            })
            .collect();
        let mut body = json!({
            "event": "run.paused",
            "run": turn.id().as_str(),
            "pause": turn.pause().as_str(),
            "awaiting": awaiting,
        });
        if let Some(page) = &self.page {
            body["link"] = json!(format!("{}#run-{}", page, turn.id().as_str()));
        }
        if let Some(reached) = turn.budget_reached() {
            body["budget_reached"] = json!(reached);
        }
        body
    }

    /// Posts `body`, trying again as the type says; the failure, if it never got through.
    async fn post(&self, body: &Value) -> Result<(), (u32, String)> {
        let mut wait = Duration::from_millis(500);
        let mut reason = String::new();
        for attempt in 1..=self.attempts {
            let again = match self.client.post(self.url.clone()).json(body).send().await {
                Ok(answer) if answer.status().is_success() => return Ok(()),
                Ok(answer) => {
                    let status = answer.status();
                    reason = format!("the receiver answered {status}");
                    is_transient(status)
                }
                Err(error) => {
                    reason = format!("the post failed: {}", without_url(&error));
                    true
                }
            };
            if !again {
                return Err((attempt, reason));
            }
            if attempt < self.attempts {
                tokio::time::sleep(wait).await;
                wait = wait.saturating_mul(2);
            }
        }
        Err((self.attempts, reason))
    }

    fn failed(&self, failure: &WebhookFailure) {
        tracing::warn!(run = %failure.run, attempts = failure.attempts, reason = %failure.reason, "the webhook was not told that a run waits");
        if let Some(report) = &self.on_failure {
            report(failure);
        }
    }
}

impl Observer for Webhook {
    fn paused(&self, turn: &PausedTurn) {
        let body = self.body(turn);
        let run = turn.id().as_str().to_owned();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.failed(&WebhookFailure {
                run,
                attempts: 0,
                reason: "no Tokio runtime to post from".to_owned(),
            });
            return;
        };
        let webhook = self.clone();
        runtime.spawn(async move {
            if let Err((attempts, reason)) = webhook.post(&body).await {
                webhook.failed(&WebhookFailure {
                    run,
                    attempts,
                    reason,
                });
            }
        });
    }
}

/// Whether a post answered `status` may get through when tried again.
fn is_transient(status: StatusCode) -> bool {
    status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
}

/// A client error without the URL, which may hold a token (a chat's webhook URL does).
fn without_url(error: &reqwest::Error) -> String {
    let mut error = error.to_string();
    if let Some(start) = error.find(" for url (") {
        error.truncate(start);
    }
    error
}

fn client(timeout: Duration) -> Result<reqwest::Client, WebhookError> {
    // reqwest's rustls has no crypto provider of its own: ring is installed as the process
    // default unless the application installed one (see the HTTP models' client).
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|error| WebhookError::Client(error.to_string()))
}

impl fmt::Debug for Webhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL is left out: a chat's webhook URL is its secret.
        f.debug_struct("Webhook")
            .field("host", &self.url.host_str())
            .field("page", &self.page)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AssistantMessage, ToolCall};

    #[test]
    fn only_http_and_https_urls_are_taken() {
        assert!(Webhook::new("https://hooks.example.com/x").is_ok());
        assert!(Webhook::new("http://127.0.0.1:9/x").is_ok());
        for url in ["ftp://example.com", "not a url", "file:///etc/passwd"] {
            assert!(
                matches!(Webhook::new(url), Err(WebhookError::InvalidUrl { .. })),
                "{url}"
            );
        }
    }

    #[test]
    fn the_body_names_the_run_its_waiting_calls_and_links_to_it() {
        let reply = AssistantMessage::with_tool_calls(vec![
            ToolCall::new("c1", "pay", r#"{"euros":5}"#),
            ToolCall::new("c2", "look", "{}"),
        ]);
        let turn = PausedTurn::new(reply, ["pay", "look"], ["c1"]);
        let webhook = Webhook::new("https://hooks.example.com/x")
            .unwrap()
            .with_page("https://agents.example.com/approvals/");
        let body = webhook.body(&turn);
        assert_eq!(body["event"], "run.paused");
        assert_eq!(body["run"], turn.id().as_str());
        assert_eq!(body["pause"], turn.pause().as_str());
        assert_eq!(
            body["awaiting"],
            json!([{"key": "c1", "tool": "pay", "arguments": "{\"euros\":5}"}])
        );
        assert_eq!(
            body["link"],
            format!(
                "https://agents.example.com/approvals/#run-{}",
                turn.id().as_str()
            )
        );
        assert!(body.get("budget_reached").is_none());
        // The secret URL stays out of what is printed.
        assert!(!format!("{webhook:?}").contains("/x"));
    }
}
