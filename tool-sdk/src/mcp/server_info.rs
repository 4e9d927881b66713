//! Who an MCP server says it is, as a type of this crate's own, so that what users read of a
//! server does not change with the protocol library underneath.

use rmcp::model::Implementation;

/// The name and version an MCP server introduced itself with, and what else it said about
/// itself ([`McpClient::server_info`](super::McpClient::server_info)).
///
/// # Examples
///
/// ```
/// use tool_sdk::mcp::{McpClient, McpServer};
/// use tool_sdk::ToolRegistry;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServer::builder("dictionary", "1.2.0").build(ToolRegistry::new())?;
/// let (client_side, server_side) = tokio::io::duplex(64 * 1024);
/// let (read, write) = tokio::io::split(server_side);
/// tokio::spawn(server.serve_io(read, write));
/// let (read, write) = tokio::io::split(client_side);
/// let client = McpClient::builder().connect_io(read, write).await?;
///
/// let info = client.server_info().expect("the server introduced itself");
/// assert_eq!(info.name, "dictionary");
/// assert_eq!(info.version, "1.2.0");
/// assert_eq!(info.title, None);
/// # client.close().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServerInfo {
    /// The server's name, such as its package's.
    pub name: String,
    /// The server's version.
    pub version: String,
    /// A name for people to read, when the server gave one.
    pub title: Option<String>,
    /// What the server is, when it said.
    pub description: Option<String>,
    /// The server's web site, when it gave one.
    pub website_url: Option<String>,
}

impl McpServerInfo {
    /// What rmcp read of the server's `serverInfo`; a function of the crate's rather than a
    /// `From` impl, which would show rmcp's type in the public API.
    pub(super) fn from_rmcp(implementation: Implementation) -> Self {
        Self {
            name: implementation.name,
            version: implementation.version,
            title: implementation.title,
            description: implementation.description,
            website_url: implementation.website_url,
        }
    }
}
