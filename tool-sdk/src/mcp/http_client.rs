//! Reaching an MCP server over streamable HTTP (feature `mcp-http`).

use std::collections::HashMap;
use std::fmt;

use http::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;

use super::{McpClient, McpClientBuilder, McpError};

/// What the HTTP transport sends besides the protocol: kept apart so that `Debug` never
/// shows a credential.
#[derive(Clone, Default)]
pub(super) struct HttpSettings {
    bearer_token: Option<String>,
    headers: Vec<(String, String)>,
}

impl fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpSettings")
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .field("headers", &names)
            .finish()
    }
}

/// Headers the transport sets itself, which a header of the user's would clash with.
const RESERVED: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

impl HttpSettings {
    /// The transport's settings for `url`; what is wrong with them, never quoting a value.
    fn transport_config(&self, url: &str) -> Result<StreamableHttpClientTransportConfig, String> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        if let Some(token) = &self.bearer_token {
            // What the transport will send, checked here so that a bad token (one read from a
            // file with its line break, say) is named as such.
            if HeaderValue::try_from(format!("Bearer {token}")).is_err() {
                return Err("the bearer token cannot be sent in a header".to_owned());
            }
            config = config.auth_header(token.clone());
        }
        let mut headers = HashMap::with_capacity(self.headers.len());
        for (name, value) in &self.headers {
            let header = HeaderName::try_from(name.as_str())
                .map_err(|_| format!("{name:?} is not a header name"))?;
            if RESERVED.contains(&header.as_str()) {
                return Err(format!(
                    "header {header} is set by the MCP transport itself"
                ));
            }
            if header == http::header::AUTHORIZATION && self.bearer_token.is_some() {
                return Err("an authorization header and a bearer token are both set".to_owned());
            }
            let mut value = HeaderValue::try_from(value.as_str())
                .map_err(|_| format!("the value of header {header} cannot be sent"))?;
            value.set_sensitive(true);
            headers.insert(header, value);
        }
        Ok(config.custom_headers(headers))
    }
}

impl McpClientBuilder {
    /// Sends `Authorization: Bearer <token>` with every HTTP request (the token without the
    /// `Bearer ` prefix). Only [`connect_http`](Self::connect_http) uses it; `Debug` never
    /// shows it.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.http.bearer_token = Some(token.into());
        self
    }

    /// Sends the header `name: value` with every HTTP request (an API key, a tenant); a name
    /// given twice keeps the last value. Only [`connect_http`](Self::connect_http) uses it;
    /// `Debug` shows the name, never the value. `connect_http` fails with
    /// [`McpError::InvalidSettings`] for a name or value HTTP does not allow, a header the
    /// transport sets itself (`Accept`, `Content-Type`, `Mcp-Session-Id`, ...), or an
    /// `Authorization` header beside a [bearer token](Self::bearer_token).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.http.headers.push((name.into(), value.into()));
        self
    }

    /// Sets a session up with the server at `url` over MCP's streamable HTTP transport
    /// (`http://` or `https://`, such as `https://example.com/mcp`).
    ///
    /// Fails with [`McpError::InvalidSettings`] for a token or [header](Self::header) that
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
    ///     .prefix("tickets_")
    ///     .bearer_token(token)
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
        self.connect_transport(StreamableHttpClientTransport::from_config(config))
            .await
    }
}
