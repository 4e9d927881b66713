//! A tool definition as an MCP tool: name, description, `inputSchema`, `outputSchema`,
//! annotations.

use std::sync::Arc;

use rmcp::model::Tool as RmcpTool;

use super::annotations::annotations_for;
use super::structured::output_schema;
use crate::define::ToolDefinition;
use crate::describe::{lower, Dialect, LoweringError};

/// The MCP listing of a tool; its schema lowered to the MCP dialect (an object at the root).
pub(crate) fn describe(definition: &ToolDefinition) -> Result<RmcpTool, LoweringError> {
    let schema = lower(&definition.name, &definition.parameters, Dialect::Mcp)?;
    // `lower` checked that the root is an object; anything else is refused the same way.
    let serde_json::Value::Object(schema) = schema else {
        return Err(LoweringError::Invalid {
            tool: definition.name.clone(),
            dialect: Dialect::Mcp,
            pointer: String::new(),
            rule: "the parameters schema must be an object schema".into(),
        });
    };
    let tool = RmcpTool::new(
        definition.name.clone(),
        definition.description.clone(),
        Arc::new(schema),
    )
    .with_annotations(annotations_for(&definition.options));
    Ok(match output_schema(definition.output_schema.as_ref()).0 {
        Some(output) => tool.with_raw_output_schema(Arc::new(output)),
        None => tool,
    })
}
