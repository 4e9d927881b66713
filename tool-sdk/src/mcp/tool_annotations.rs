//! The hints an MCP tool is listed with, as a type of this crate's own.

use rmcp::model::ToolAnnotations;

/// The annotations of a listed MCP tool ([`McpTool::annotations`](super::McpTool::annotations)):
/// hints for a host, never enforced. Each is `None` when the listing leaves it out; MCP then
/// assumes a tool writes (`readOnlyHint: false`), destroys (`destructiveHint: true`), is not
/// idempotent and reaches an open world.
///
/// A served tool always states `read_only_hint`, and `destructive_hint` whenever its options
/// say something (see the [module documentation](super#annotations)).
///
/// # Examples
///
/// ```
/// use tool_sdk::mcp::McpServer;
/// use tool_sdk::{tool, ToolRegistry};
///
/// /// Deletes a file.
/// #[tool(destructive)]
/// fn delete(path: String) -> String {
///     format!("deleted {path}")
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut registry = ToolRegistry::new();
/// registry.register(DeleteTool)?;
/// let server = McpServer::builder("files", "1.0.0").build(registry)?;
///
/// let annotations = server.listed_tools()[0].annotations.clone().unwrap_or_default();
/// assert_eq!(annotations.read_only_hint, Some(false));
/// assert_eq!(annotations.destructive_hint, Some(true));
/// assert_eq!(annotations.idempotent_hint, None);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpToolAnnotations {
    /// A name for people to read.
    pub title: Option<String>,
    /// Whether the tool leaves its environment as it is (`readOnlyHint`).
    pub read_only_hint: Option<bool>,
    /// Whether the tool may destroy something, rather than only add (`destructiveHint`;
    /// meaningful only for a tool that is not read-only).
    pub destructive_hint: Option<bool>,
    /// Whether calling the tool again with the same arguments changes nothing more
    /// (`idempotentHint`).
    pub idempotent_hint: Option<bool>,
    /// Whether the tool reaches beyond a closed set of things, such as the web
    /// (`openWorldHint`).
    pub open_world_hint: Option<bool>,
}

impl McpToolAnnotations {
    /// The hints rmcp read; a function of the crate's rather than a `From` impl, which would
    /// show rmcp's type in the public API.
    pub(super) fn from_rmcp(annotations: &ToolAnnotations) -> Self {
        Self {
            title: annotations.title.clone(),
            read_only_hint: annotations.read_only_hint,
            destructive_hint: annotations.destructive_hint,
            idempotent_hint: annotations.idempotent_hint,
            open_world_hint: annotations.open_world_hint,
        }
    }
}
