//! What the HTTP transport of the MCP client sends besides the protocol.

use std::collections::HashMap;
use std::fmt;

use http::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

/// What the HTTP transport sends besides the protocol: kept apart so that `Debug` never
/// shows a credential.
#[derive(Clone, Default)]
pub(super) struct HttpSettings {
    pub(super) bearer_token: Option<String>,
    pub(super) headers: Vec<(String, String)>,
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
    pub(super) fn transport_config(
        &self,
        url: &str,
    ) -> Result<StreamableHttpClientTransportConfig, String> {
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
