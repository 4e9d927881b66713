//! A tool as an MCP server lists it, as a type of this crate's own.

use rmcp::model::Tool as RmcpTool;
use serde_json::Value;

use super::McpToolAnnotations;

/// A tool as `tools/list` gives it ([`McpServer::listed_tools`](super::McpServer::listed_tools)):
/// what a client reads of it, with its schemas as JSON.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::mcp::McpServer;
/// use tool_sdk::{tool, ToolRegistry};
///
/// /// Adds two numbers.
/// #[tool(read_only)]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut registry = ToolRegistry::new();
/// registry.register(AddTool)?;
/// let server = McpServer::builder("calculator", "1.0.0").build(registry)?;
///
/// let [listed] = server.listed_tools() else {
///     panic!("one tool is listed");
/// };
/// assert_eq!(listed.name, "add");
/// assert_eq!(listed.description.as_deref(), Some("Adds two numbers."));
/// assert_eq!(listed.input_schema["type"], json!("object"));
/// assert_eq!(listed.input_schema["required"], json!(["a", "b"]));
/// assert_eq!(listed.annotations.as_ref().and_then(|hints| hints.read_only_hint), Some(true));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpTool {
    /// The name the tool is called by.
    pub name: String,
    /// A name for people to read, when there is one.
    pub title: Option<String>,
    /// What the tool does, for the model.
    pub description: Option<String>,
    /// The JSON Schema of the tool's arguments (`inputSchema`), an object schema.
    pub input_schema: Value,
    /// The JSON Schema of the tool's structured output (`outputSchema`), when it has one.
    pub output_schema: Option<Value>,
    /// The hints the tool is listed with, when it has any.
    pub annotations: Option<McpToolAnnotations>,
}

impl McpTool {
    /// What rmcp lists; a function of the crate's rather than a `From` impl, which would show
    /// rmcp's type in the public API.
    pub(super) fn from_rmcp(tool: &RmcpTool) -> Self {
        Self {
            name: tool.name.to_string(),
            title: tool.title.clone(),
            description: tool.description.as_ref().map(ToString::to_string),
            input_schema: Value::Object(tool.input_schema.as_ref().clone()),
            output_schema: tool
                .output_schema
                .as_ref()
                .map(|schema| Value::Object(schema.as_ref().clone())),
            annotations: tool.annotations.as_ref().map(McpToolAnnotations::from_rmcp),
        }
    }
}
