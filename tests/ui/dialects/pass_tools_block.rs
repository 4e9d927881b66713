#![deny(warnings)]

//! `#[tools(dialects(...))]` checks every method of the block that names no dialects of its
//! own; a method's own list, even empty, takes the block's place.

use std::collections::HashMap;
use std::sync::Arc;

use tool_sdk::{tools, ToolRegistry};

struct Photos;

#[tools(dialects(gemini, openai_strict))]
impl Photos {
    /// Tags a photo.
    #[tool]
    fn tag(&self, photo: u64, tags: Vec<String>) -> String {
        format!("{photo} {tags:?}")
    }

    /// Labels a photo, for MCP hosts only.
    #[tool(dialects(mcp))]
    fn label(&self, labels: HashMap<String, String>) -> usize {
        labels.len()
    }

    /// Stores anything, checked against nothing.
    #[tool(dialects())]
    fn store(&self, value: serde_json::Value) -> String {
        value.to_string()
    }
}

fn main() {
    let mut registry = ToolRegistry::new();
    registry
        .register_set(Arc::new(Photos))
        .expect("three tools that lower");
    assert_eq!(registry.len(), 3);
}
