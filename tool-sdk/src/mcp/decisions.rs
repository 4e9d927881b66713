//! What a served call that needs a person's decision gets: the host's user asked, a refusal,
//! or the application's own policy.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::gate::Sealer;
use crate::model::ToolCall;

/// How long the request state of an input request stays valid when the server seals it with
/// a key of its own: long enough for a person to read the question, short enough that an
/// answer left lying about is soon worth nothing.
pub(super) const OWN_KEY_TTL: Duration = Duration::from_secs(15 * 60);

/// What an [`McpServer`](super::McpServer) does with a call that needs a person's decision
/// (the tool's `confirm`, or the [`ConfirmationPolicy`](crate::gate::ConfirmationPolicy) given
/// to the builder). By default, [`ask`](Self::ask).
///
/// Asking reaches the person in the MCP host (an IDE, a desktop assistant) with a short
/// question naming the tool and its arguments, and a form: allow or deny, and a reason.
///
/// - On a 2026-07-28 session the call answers "input required" with the question and a
///   **request state**: the call sealed by a [`Sealer`] (HMAC-SHA256), bound to the tool's name
///   and the fingerprint of its arguments and to the server's name, with an expiry and a
///   one-time nonce. The client asks its user and calls again with the answer and the state;
///   the call then runs once, if allowed. A forged, expired, replayed, other call's or other
///   server's state runs nothing and gets a JSON-RPC error (`-32602`) that says which. The
///   state is not bound to a session or connection: 2026-07-28 requests have none (the
///   retry stands alone and may reach any replica), and older revisions, which have
///   sessions, ask within the call and issue no state.
/// - On older sessions (2025-11-25 and before) the server sends an elicitation request and
///   waits for the answer within the same call.
/// - A client that declares no elicitation gets a refusal naming what is missing, and
///   nothing runs.
///
/// A denial is the tool's error text (`isError: true`): the reason the person gave, for the
/// client's model to read.
///
/// # Examples
///
/// # Replicas
///
/// Replicas behind one load balancer share the key, so that any of them opens a request state,
/// the server's name (given to [`McpServer::builder`](super::McpServer::builder)), which
/// states are bound to, so that another server sharing the key refuses them, and the store
/// where each state is redeemed, so that only one of them runs it: the
/// [`ReplayGuard`](crate::store::ReplayGuard) of the run store they share (a `PostgresStore`;
/// a `SqliteStore` for processes of one machine). A sealer given without a replay guard of
/// its own is refused when the server is built: each replica would run an allowed call once.
///
/// ```
/// use std::sync::Arc;
/// use tool_sdk::gate::Sealer;
/// use tool_sdk::mcp::{McpDecision, McpDecisions, McpServer};
/// use tool_sdk::store::{InMemoryRunStore, ReplayGuard};
/// use tool_sdk::ToolRegistry;
///
/// /// One replica's decisions: the replicas' key, and the store they all share.
/// fn replica(key: &[u8], shared: Arc<dyn ReplayGuard>) -> Result<McpDecisions, Box<dyn std::error::Error>> {
///     Ok(McpDecisions::ask().with_sealer(Sealer::new(key)?.with_replay_guard(shared)))
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let key = [7u8; 32]; // from the application's secrets
/// // The store the replicas share: a `PostgresStore` in production; one in memory here.
/// let shared = Arc::new(InMemoryRunStore::new());
/// let replicated = McpServer::builder("bank", "1.0.0")
///     .with_decisions(replica(&key, shared)?)
///     .build(ToolRegistry::new())?;
///
/// // The application's own policy: transfers up to 10 run, others are asked about.
/// let policy = McpDecisions::decide_with(|call| {
///     let arguments: serde_json::Value =
///         serde_json::from_str(&call.arguments).unwrap_or_default();
///     match arguments["amount"].as_u64() {
///         Some(amount) if call.name == "transfer" && amount <= 10 => McpDecision::Allow,
///         _ => McpDecision::Ask,
///     }
/// });
///
/// let server = McpServer::builder("bank", "1.0.0")
///     .with_decisions(policy)
///     .build(ToolRegistry::new())?;
/// # let _ = (replicated, server);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpDecisions {
    policy: Policy,
    sealer: Option<Sealer>,
}

#[derive(Clone)]
enum Policy {
    Ask,
    Refuse,
    Own(Arc<dyn Fn(&ToolCall) -> McpDecision + Send + Sync>),
}

/// What the application's policy ([`McpDecisions::decide_with`]) says of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpDecision {
    /// Ask the host's user.
    Ask,
    /// Run the call without asking.
    Allow,
    /// Do not run it; the client's model reads the message as the tool's error.
    Deny(String),
    /// Refuse it as a server that cannot ask does.
    Refuse,
}

impl McpDecisions {
    /// Ask the host's user about every such call. The request state is sealed with a key
    /// this server draws when it is built, valid for 15 minutes: enough for one process. A
    /// server behind a load balancer gives each replica the same key and the replay guard of
    /// the store they share with [`with_sealer`](Self::with_sealer).
    pub fn ask() -> Self {
        Self {
            policy: Policy::Ask,
            sealer: None,
        }
    }

    /// Refuse every such call with an `isError` result saying that it needs a person's
    /// decision, which this server does not ask for.
    pub fn refuse() -> Self {
        Self {
            policy: Policy::Refuse,
            sealer: None,
        }
    }

    /// The application decides each such call itself, asking the host's user where `policy`
    /// says [`McpDecision::Ask`].
    pub fn decide_with(policy: impl Fn(&ToolCall) -> McpDecision + Send + Sync + 'static) -> Self {
        Self {
            policy: Policy::Own(Arc::new(policy)),
            sealer: None,
        }
    }

    /// Seals request states with `sealer` (its key, time to live and
    /// [replay guard](crate::store::ReplayGuard)) instead of a key of the server's own. The
    /// sealer needs a replay guard of its own
    /// ([`Sealer::with_replay_guard`](crate::gate::Sealer::with_replay_guard)): whatever shares
    /// the key must share where states are redeemed, and building the server fails without
    /// one ([`McpError::InvalidSettings`](super::McpError::InvalidSettings)).
    pub fn with_sealer(mut self, sealer: Sealer) -> Self {
        self.sealer = Some(sealer);
        self
    }

    /// What to do with `call`.
    pub(super) fn decide(&self, call: &ToolCall) -> McpDecision {
        match &self.policy {
            Policy::Ask => McpDecision::Ask,
            Policy::Refuse => McpDecision::Refuse,
            Policy::Own(policy) => policy(call),
        }
    }

    /// The sealer chosen, if any.
    pub(super) fn sealer(&self) -> Option<&Sealer> {
        self.sealer.as_ref()
    }
}

impl Default for McpDecisions {
    fn default() -> Self {
        Self::ask()
    }
}

impl fmt::Debug for McpDecisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let policy = match self.policy {
            Policy::Ask => "ask",
            Policy::Refuse => "refuse",
            Policy::Own(_) => "the application's own",
        };
        f.debug_struct("McpDecisions")
            .field("policy", &policy)
            .field("sealer", &self.sealer)
            .finish()
    }
}
