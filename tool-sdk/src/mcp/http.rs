//! A registry served over MCP's streamable HTTP transport (feature `mcp-http`).

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{McpError, McpServer};

/// [`McpServer`] as a tower `Service` of MCP's streamable HTTP transport; see
/// [`McpServer::into_http_service`].
pub type McpHttpService = StreamableHttpService<McpServer, LocalSessionManager>;

impl McpServer {
    /// The server as a tower `Service` answering MCP's streamable HTTP transport (`POST` for
    /// requests, `GET` for the server's stream, `DELETE` to end a session), to mount in a web
    /// framework at the path clients are given, such as `/mcp` (with axum:
    /// `Router::new().nest_service("/mcp", server.into_http_service(config))`).
    ///
    /// `config` is rmcp's: by default it keeps a session per client and, against DNS
    /// rebinding, answers only requests whose `Host` is a loopback name; a server reachable
    /// under other names must list them
    /// ([`with_allowed_hosts`](StreamableHttpServerConfig::with_allowed_hosts)). Cancelling its
    /// `cancellation_token` ends every session. Every session shares this server's registry.
    pub fn into_http_service(self, config: StreamableHttpServerConfig) -> McpHttpService {
        StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }

    /// Serves MCP's streamable HTTP transport (HTTP/1.1, no TLS) on every path of
    /// `listener`'s connections, until `shutdown` is cancelled: then it stops accepting, ends
    /// every session and returns. Requests must name a loopback host (see
    /// [`into_http_service`](Self::into_http_service) for other hosts, TLS or a path of
    /// their own in a web framework).
    ///
    /// Fails with [`McpError::Stopped`] when accepting a connection fails.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokio::net::TcpListener;
    /// use tool_sdk::mcp::McpServer;
    /// use tool_sdk::{tool, CancellationToken, ToolRegistry};
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
        let config =
            StreamableHttpServerConfig::default().with_cancellation_token(shutdown.child_token());
        let service = TowerToHyperService::new(self.into_http_service(config));
        let http = hyper::server::conn::http1::Builder::new();
        loop {
            let (stream, _) = tokio::select! {
                () = shutdown.cancelled() => return Ok(()),
                accepted = listener.accept() => {
                    accepted.map_err(|error| McpError::Stopped(Box::new(error)))?
                }
            };
            let connection = http.serve_connection(TokioIo::new(stream), service.clone());
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
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
    }
}
