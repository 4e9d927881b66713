//! A registry served over MCP's streamable HTTP transport (feature `mcp-http`).

use std::io;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::{service_fn, Service};
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::http_service::McpHttpService;
use super::idle_body::IdleBody;
use super::{McpError, McpHttpSettings, McpServer};

/// How long to wait before accepting again after a failure that is not the connection's own.
const ACCEPT_RETRY: Duration = Duration::from_secs(1);
/// How long a client may send nothing of a request body before the request fails.
const CLIENT_IDLE: Duration = Duration::from_secs(30);
/// How long shutdown waits for open connections to close.
const DRAIN: Duration = Duration::from_secs(5);

impl McpServer {
    /// The server as a tower `Service` answering MCP's streamable HTTP transport (`POST` for
    /// requests, `GET` for the server's stream, `DELETE` to end a session), to mount in a web
    /// framework at the path clients are given, such as `/mcp` (with axum:
    /// `Router::new().nest_service("/mcp", server.into_http_service(settings))`).
    ///
    /// [`settings`](McpHttpSettings) keep a session per client by default. Against DNS
    /// rebinding, as the MCP specification requires, two headers are checked:
    ///
    /// - **`Host`**: only loopback names by default; a server reachable under other names must
    ///   list them ([`with_allowed_hosts`](McpHttpSettings::with_allowed_hosts)).
    /// - **`Origin`** (sent by browsers): a request without one (any client that is not a
    ///   browser) is served; one with an origin not allowed is refused with `403`. By default
    ///   the allowed origins are the loopback ones, `http` or `https`, any port
    ///   (`http://localhost:*`, `127.0.0.1`, `[::1]`); a server used from the pages of a site
    ///   lists them instead ([`with_allowed_origins`](McpHttpSettings::with_allowed_origins),
    ///   such as `["https://app.example.com"]`; `:*` matches any port). The list replaces the
    ///   loopback default.
    ///
    /// A body that is not a JSON-RPC message is answered `400` with the JSON-RPC error
    /// (`-32700` for what is not JSON, `-32600` for other JSON, a batch array included, or a
    /// value nested deeper than 127 levels; `"id": null`); a body over
    /// [`max_request_body_bytes`](McpHttpSettings::with_max_request_body_bytes) (4 MiB by
    /// default) gets `413`. A `DELETE` that ends a session gets `200`.
    ///
    /// Cancelling the settings' [cancellation token](McpHttpSettings::with_cancellation_token)
    /// ends every session. Every session shares this server's registry.
    ///
    /// # Examples
    ///
    /// ```
    /// use tool_sdk::mcp::{McpHttpSettings, McpServer};
    /// use tool_sdk::run::CancellationToken;
    /// use tool_sdk::ToolRegistry;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let shutdown = CancellationToken::new();
    /// let server = McpServer::builder("calculator", "1.0.0").build(ToolRegistry::new())?;
    /// let service = server.into_http_service(
    ///     McpHttpSettings::new()
    ///         .with_allowed_hosts(["tools.example.com"])
    ///         .with_cancellation_token(shutdown.child_token()),
    /// );
    /// // Mount `service` in a web framework, at `/mcp`; cancel `shutdown` to end the sessions.
    /// # let _ = service;
    /// # Ok(())
    /// # }
    /// ```
    pub fn into_http_service(self, settings: McpHttpSettings) -> McpHttpService {
        McpHttpService::new(self, &settings)
    }

    /// Serves MCP's streamable HTTP transport (HTTP/1.1, no TLS) on every path of
    /// `listener`'s connections, with the [default settings](McpHttpSettings::new) (requests
    /// must name a loopback host, and come from no page or a loopback one; see
    /// [`into_http_service`](Self::into_http_service)), until `shutdown` is cancelled. See
    /// [`serve_http_with`](Self::serve_http_with) for other settings.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokio::net::TcpListener;
    /// use tool_sdk::mcp::McpServer;
    /// use tool_sdk::run::CancellationToken;
    /// use tool_sdk::{tool, ToolRegistry};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let mut registry = ToolRegistry::new();
    ///     registry.register(AddTool)?;
    ///     let server = McpServer::builder("calculator", "1.0.0").build(registry)?;
    ///     let listener = TcpListener::bind("127.0.0.1:8000").await?;
    ///     // Clients connect to http://127.0.0.1:8000/mcp (any path answers).
    ///     server.serve_http(listener, CancellationToken::new()).await?;
    ///     Ok(())
    /// }
    /// ```
    pub async fn serve_http(
        self,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> Result<(), McpError> {
        self.serve_http_with(listener, McpHttpSettings::new(), shutdown)
            .await
    }

    /// [`serve_http`](Self::serve_http) with [`settings`](McpHttpSettings): the host names
    /// requests may name ([`with_allowed_hosts`](McpHttpSettings::with_allowed_hosts), for a
    /// server reachable under a public name), the origins of the pages that may call it
    /// ([`with_allowed_origins`](McpHttpSettings::with_allowed_origins); loopback ones when
    /// none are listed), stateless mode ([`with_sessions`](McpHttpSettings::with_sessions)),
    /// the largest request body. What each check answers is in
    /// [`into_http_service`](Self::into_http_service). Cancelling the settings' own
    /// [cancellation token](McpHttpSettings::with_cancellation_token) ends every session, as
    /// `shutdown` does, without closing the listener.
    ///
    /// A failure to accept a connection does not end it: a connection reset before it was
    /// accepted is skipped, and any other failure (such as running out of file descriptors
    /// under load) is logged with `tracing` and retried a second later. A client that does
    /// not finish sending its request's headers within 30 s is disconnected, and a request
    /// whose body stops coming for 30 s fails.
    ///
    /// Once `shutdown` is cancelled it stops accepting, ends every session (calls still
    /// running are dropped), closes idle connections after the response in progress, waits
    /// up to 5 s for the connections to close, and returns `Ok`.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokio::net::TcpListener;
    /// use tool_sdk::mcp::{McpHttpSettings, McpServer};
    /// use tool_sdk::run::CancellationToken;
    ///
    /// # async fn run(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = TcpListener::bind("0.0.0.0:8000").await?;
    /// let settings =
    ///     McpHttpSettings::new().with_allowed_hosts(["tools.example.com", "tools.example.com:8000"]);
    /// server
    ///     .serve_http_with(listener, settings, CancellationToken::new())
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve_http_with(
        self,
        listener: TcpListener,
        settings: McpHttpSettings,
        shutdown: CancellationToken,
    ) -> Result<(), McpError> {
        // The sessions end with the settings' token, and with `shutdown` below.
        let sessions = settings.cancellation_token().child_token();
        let settings = settings.with_cancellation_token(sessions.clone());
        let service = TowerToHyperService::new(self.into_http_service(settings));
        let mut http = hyper::server::conn::http1::Builder::new();
        // A client that opens a connection and never finishes its request's headers is cut
        // off after hyper's 30 s (the same as CLIENT_IDLE), rather than holding a descriptor
        // for good.
        http.timer(TokioTimer::new());
        let connections = TaskTracker::new();
        loop {
            let accepted = tokio::select! {
                () = shutdown.cancelled() => break,
                accepted = listener.accept() => accepted,
            };
            let stream = match accepted {
                Ok((stream, _)) => stream,
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => {
                    tracing::warn!(%error, "cannot accept an MCP HTTP connection; retrying in 1 s");
                    tokio::select! {
                        () = shutdown.cancelled() => break,
                        () = tokio::time::sleep(ACCEPT_RETRY) => continue,
                    }
                }
            };
            let service = service.clone();
            // The body of a request must keep coming, as its headers must.
            let requests = service_fn(move |request: Request<Incoming>| {
                service.call(request.map(|body| IdleBody::new(body, CLIENT_IDLE)))
            });
            let connection = http.serve_connection(TokioIo::new(stream), requests);
            let shutdown = shutdown.clone();
            connections.spawn(async move {
                // A connection left idle by its client is closed on shutdown, after the
                // response in progress.
                let mut connection = std::pin::pin!(connection);
                let served = tokio::select! {
                    served = connection.as_mut() => served,
                    () = shutdown.cancelled() => {
                        connection.as_mut().graceful_shutdown();
                        connection.await
                    }
                };
                if let Err(error) = served {
                    tracing::debug!(%error, "an MCP HTTP connection ended with an error");
                }
            });
        }
        drop(listener);
        // Ending the sessions ends their event streams, which keep connections open.
        sessions.cancel();
        connections.close();
        if tokio::time::timeout(DRAIN, connections.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                open = connections.len(),
                "MCP HTTP connections still open after shutdown; leaving them"
            );
        }
        Ok(())
    }
}

/// A failure of one connection (gone before it was accepted), not of the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
