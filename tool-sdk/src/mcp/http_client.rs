//! Reaching an MCP server over streamable HTTP (feature `mcp-http`).

use rmcp::transport::StreamableHttpClientTransport;

use super::{McpClient, McpClientBuilder, McpError};

impl McpClientBuilder {
    /// Sends `Authorization: Bearer <token>` with every HTTP request (the token without the
    /// `Bearer ` prefix). Only [`connect_http`](Self::connect_http) uses it; `Debug` never
    /// shows it.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.http.bearer_token = Some(token.into());
        self
    }

    /// Sends the header `name: value` with every HTTP request (an API key, a tenant); a name
    /// given twice keeps the last value. Only [`connect_http`](Self::connect_http) uses it;
    /// `Debug` shows the name, never the value. `connect_http` fails with
    /// [`McpError::InvalidSettings`] for a name or value HTTP does not allow, a header the
    /// transport sets itself (`Accept`, `Content-Type`, `Mcp-Session-Id`, ...), or an
    /// `Authorization` header beside a [bearer token](Self::with_bearer_token).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.http.headers.push((name.into(), value.into()));
        self
    }

    /// Sets a session up with the server at `url` over MCP's streamable HTTP transport
    /// (`http://` or `https://`, such as `https://example.com/mcp`).
    ///
    /// Fails with [`McpError::InvalidSettings`] for a token or [header](Self::with_header) that
    /// cannot be sent, before anything is sent, and with [`McpError::Initialize`] when the
    /// server cannot be reached or refuses the session (a `401` for a missing or wrong token
    /// included).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tool_sdk::mcp::McpClient;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let token = std::env::var("TICKETS_TOKEN")?;
    /// let tickets = McpClient::builder()
    ///     .with_prefix("tickets_")
    ///     .with_bearer_token(token)
    ///     .connect_http("https://tickets.example.com/mcp")
    ///     .await?;
    /// # let _ = tickets;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_http(self, url: &str) -> Result<McpClient, McpError> {
        let config = self
            .http
            .transport_config(url)
            .map_err(McpError::InvalidSettings)?;
        // rmcp's HTTP client has reqwest's rustls without a crypto provider of its own (as
        // the HTTP models' has), and cannot start without one: ring is installed as the
        // process default, unless the application installed a provider already.
        // ring, chosen for a light build, has no post-quantum key exchange (newer rustls marks
        // it deprecated for that): an application that wants one installs aws-lc-rs's provider
        // first, and it is used.
        #[allow(deprecated)]
        let _ = rustls::crypto::ring::default_provider().install_default();
        self.connect_transport(StreamableHttpClientTransport::from_config(config))
            .await
    }
}
