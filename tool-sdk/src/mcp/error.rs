//! What can go wrong when serving or consuming MCP.

use std::error::Error as StdError;

use crate::describe::LoweringError;
use crate::register::RegistryError;

type Source = Box<dyn StdError + Send + Sync>;

/// Why an MCP server or client could not be set up, or stopped.
///
/// Failures of single tool calls are not here: a served tool's error goes back to the client as
/// an `isError` result, and a consumed tool's error is a [`ToolError`](crate::define::ToolError).
///
/// Match it by variant:
///
/// ```
/// use tool_sdk::mcp::McpError;
///
/// let error = McpError::NameTaken("stock".into());
/// assert!(matches!(error, McpError::NameTaken(ref name) if name == "stock"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A tool's parameters schema has no MCP form (the root is not an object).
    #[error(transparent)]
    Schema(#[from] LoweringError),

    /// A consumed tool could not be added to a registry (a name taken already).
    #[error(transparent)]
    Registry(#[from] RegistryError),

    /// A tool of the server would take a name the registry holds already.
    #[error(
        "the MCP server's tool `{0}` has the name of a tool the registry holds already; give \
         the client a prefix for its tools (McpClientBuilder::with_prefix, such as \"server_\") to \
         keep them apart"
    )]
    NameTaken(String),

    /// The client's settings cannot be used (a header name or value HTTP does not allow).
    #[error("the MCP client's settings are invalid: {0}")]
    InvalidSettings(String),

    /// The MCP server process could not be started.
    #[error("could not start the MCP server process: {0}")]
    Spawn(#[source] std::io::Error),

    /// The peer left or broke the protocol before the session was set up.
    #[error("the MCP session could not be set up: {0}")]
    Initialize(#[source] Source),

    /// A request to the server failed (transport closed, protocol error).
    #[error("the MCP request failed: {0}")]
    Request(#[source] Source),

    /// The service's task ended abnormally.
    #[error("the MCP service stopped abnormally: {0}")]
    Stopped(#[source] Source),
}
