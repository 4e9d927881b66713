//! The settings of a registry served over MCP's streamable HTTP transport: this crate's own
//! type, turned into rmcp's inside the crate, so that what users set does not change with the
//! protocol library underneath.

use std::time::Duration;

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio_util::sync::CancellationToken;

/// The host names served when the settings list none other: this machine's.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// The origins served when the settings list none: a page served from this machine.
/// Against DNS rebinding, a page of another site, even one whose name resolves to a loopback
/// address, is refused.
const LOOPBACK_ORIGINS: &[&str] = &[
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// The largest request body served by default, the same as the stdio line limit.
const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;

/// The most sessions kept open by default: some 60 MB of sessions at most.
const DEFAULT_MAX_SESSIONS: usize = 1_000;

/// How often an idle event stream gets a comment by default, so that proxies keep it open.
const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How [`McpServer::serve_http_with`](super::McpServer::serve_http_with) and
/// [`McpServer::into_http_service`](super::McpServer::into_http_service) serve MCP's streamable
/// HTTP transport. [`new`](Self::new) (or `Default`) is what
/// [`serve_http`](super::McpServer::serve_http) uses:
///
/// - **Hosts** ([`with_allowed_hosts`](Self::with_allowed_hosts)): a request must name a
///   loopback `Host` (`localhost`, `127.0.0.1`, `::1`, any port); a server reachable under
///   other names lists them, with their port where clients give one.
/// - **Origins** ([`with_allowed_origins`](Self::with_allowed_origins)): a request from a web
///   page (one with an `Origin` header) is served only from a loopback origin, `http` or
///   `https`, any port; a request without one (any client that is not a browser) is served.
/// - **Body** ([`with_max_request_body_bytes`](Self::with_max_request_body_bytes)): 4 MiB at
///   most, a larger one answered `413`.
/// - **Sessions** ([`with_sessions`](Self::with_sessions)): a session per client, its events
///   on a stream kept open with a comment every 15 s
///   ([`with_keep_alive`](Self::with_keep_alive)); 1,000 sessions at most
///   ([`with_max_sessions`](Self::with_max_sessions)), opening another closing the one unused
///   the longest (one with a stream open only when every session has one).
/// - **Shutdown** ([`with_cancellation_token`](Self::with_cancellation_token)): cancelling the
///   token ends every session.
///
/// # Examples
///
/// ```
/// use tool_sdk::mcp::McpHttpSettings;
/// use tool_sdk::run::CancellationToken;
///
/// let shutdown = CancellationToken::new();
/// let settings = McpHttpSettings::new()
///     .with_allowed_hosts(["tools.example.com", "tools.example.com:8000"])
///     .with_allowed_origins(["https://app.example.com"])
///     .with_max_request_body_bytes(1024 * 1024)
///     .with_cancellation_token(shutdown.child_token());
///
/// assert_eq!(settings.allowed_hosts(), ["tools.example.com", "tools.example.com:8000"]);
/// assert_eq!(settings.allowed_origins(), ["https://app.example.com"]);
/// assert_eq!(settings.max_request_body_bytes(), 1024 * 1024);
/// assert!(settings.sessions());
/// assert_eq!(settings.max_sessions(), 1_000);
/// shutdown.cancel();
/// assert!(settings.cancellation_token().is_cancelled());
/// ```
#[derive(Debug, Clone)]
pub struct McpHttpSettings {
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    max_request_body_bytes: usize,
    cancellation_token: CancellationToken,
    sessions: bool,
    max_sessions: usize,
    json_response: bool,
    keep_alive: Option<Duration>,
}

impl Default for McpHttpSettings {
    fn default() -> Self {
        Self {
            allowed_hosts: LOOPBACK_HOSTS.iter().map(|&host| host.to_owned()).collect(),
            allowed_origins: Vec::new(),
            max_request_body_bytes: DEFAULT_MAX_BODY,
            cancellation_token: CancellationToken::new(),
            sessions: true,
            max_sessions: DEFAULT_MAX_SESSIONS,
            json_response: false,
            keep_alive: Some(DEFAULT_KEEP_ALIVE),
        }
    }
}

impl McpHttpSettings {
    /// The default settings: loopback hosts and origins, 4 MiB bodies, a session per client.
    pub fn new() -> Self {
        Self::default()
    }

    /// The host names (`tools.example.com`) or authorities (`tools.example.com:8000`) a
    /// request's `Host` may name, instead of the loopback ones; a name without a port matches
    /// any port. Anything else is refused with `403`, against DNS rebinding. An empty list
    /// lets every `Host` through, which a server reachable from other machines should not do.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// The origins of the web pages that may call the server (`https://app.example.com`;
    /// `:*` matches any port, `null` the browser's `Origin: null`), instead of the loopback
    /// ones: a request with another `Origin` is refused with `403`. A request without an
    /// `Origin` is always served. An empty list means the loopback origins.
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest request body, in bytes; a larger one is answered `413`. 4 MiB by default.
    pub fn with_max_request_body_bytes(mut self, bytes: usize) -> Self {
        self.max_request_body_bytes = bytes;
        self
    }

    /// A token that ends every session when cancelled (a new, never cancelled one by
    /// default). [`serve_http_with`](super::McpServer::serve_http_with) ends them on its own
    /// shutdown too.
    pub fn with_cancellation_token(mut self, token: CancellationToken) -> Self {
        self.cancellation_token = token;
        self
    }

    /// Whether the server keeps a session per client (`Mcp-Session-Id`, events on a stream
    /// the client opens with `GET`), as by default, or serves each request on its own
    /// (stateless mode, for a server behind a load balancer).
    pub fn with_sessions(mut self, on: bool) -> Self {
        self.sessions = on;
        self
    }

    /// The most sessions kept open at once (1,000 by default; at least 1). Each holds some
    /// 60 KB until its client ends it or it is idle for 5 minutes, so clients that open
    /// sessions and leave them would grow the server without a bound. When a client opens
    /// one more, the session that has gone longest without a request is closed: its client
    /// gets `404` on its next request and opens a new session, as MCP asks. A session with a
    /// stream open (a call in flight, a question waiting for its user's answer, a client
    /// listening) is passed over unless every session has one, so opening sessions cannot cut
    /// a call short. Refusing the new session instead would keep every new client out for as
    /// long as the idle ones live.
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// In stateless mode, whether a request the server answers with one message gets
    /// `application/json` rather than an event stream. Off by default; sessions ignore it.
    pub fn with_json_response(mut self, on: bool) -> Self {
        self.json_response = on;
        self
    }

    /// How often an idle event stream gets a comment, so that proxies do not close it (15 s
    /// by default); `None` sends none.
    pub fn with_keep_alive(mut self, every: Option<Duration>) -> Self {
        self.keep_alive = every;
        self
    }

    /// The host names a request may name.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
    }

    /// The origins of the pages that may call the server; empty for the loopback ones.
    pub fn allowed_origins(&self) -> &[String] {
        &self.allowed_origins
    }

    /// The largest request body, in bytes.
    pub fn max_request_body_bytes(&self) -> usize {
        self.max_request_body_bytes
    }

    /// The token that ends every session.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation_token
    }

    /// Whether the server keeps a session per client.
    pub fn sessions(&self) -> bool {
        self.sessions
    }

    /// The most sessions kept open at once.
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// Whether a stateless answer of one message is `application/json`.
    pub fn json_response(&self) -> bool {
        self.json_response
    }

    /// How often an idle event stream gets a comment.
    pub fn keep_alive(&self) -> Option<Duration> {
        self.keep_alive
    }

    /// rmcp's settings for these: rmcp's defaults for what is not set here, and the loopback
    /// origins for an empty list, where rmcp would check no origin at all.
    pub(super) fn to_rmcp(&self) -> StreamableHttpServerConfig {
        let origins: Vec<String> = if self.allowed_origins.is_empty() {
            LOOPBACK_ORIGINS
                .iter()
                .map(|&origin| origin.to_owned())
                .collect()
        } else {
            self.allowed_origins.clone()
        };
        StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.allowed_hosts.iter().cloned())
            .with_allowed_origins(origins)
            .with_max_request_body_bytes(self.max_request_body_bytes)
            .with_cancellation_token(self.cancellation_token.clone())
            .with_legacy_session_mode(self.sessions)
            .with_json_response(self.json_response)
            .with_sse_keep_alive(self.keep_alive)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_rmcps_but_for_the_origins() {
        let ours = McpHttpSettings::new().to_rmcp();
        let rmcps = StreamableHttpServerConfig::default();
        assert_eq!(ours.allowed_hosts, rmcps.allowed_hosts);
        assert_eq!(ours.max_request_body_bytes, rmcps.max_request_body_bytes);
        assert_eq!(ours.legacy_session_mode, rmcps.legacy_session_mode);
        assert_eq!(ours.json_response, rmcps.json_response);
        assert_eq!(ours.sse_keep_alive, rmcps.sse_keep_alive);
        assert_eq!(ours.allowed_origins, LOOPBACK_ORIGINS);
    }

    #[test]
    fn what_is_set_reaches_rmcp() {
        let token = CancellationToken::new();
        let config = McpHttpSettings::new()
            .with_allowed_hosts(["tools.example.com"])
            .with_allowed_origins(["https://app.example.com"])
            .with_max_request_body_bytes(10)
            .with_cancellation_token(token.clone())
            .with_sessions(false)
            .with_json_response(true)
            .with_keep_alive(None)
            .to_rmcp();
        assert_eq!(config.allowed_hosts, ["tools.example.com"]);
        assert_eq!(config.allowed_origins, ["https://app.example.com"]);
        assert_eq!(config.max_request_body_bytes, 10);
        assert!(!config.legacy_session_mode);
        assert!(config.json_response);
        assert_eq!(config.sse_keep_alive, None);
        token.cancel();
        assert!(config.cancellation_token.is_cancelled());
    }
}
