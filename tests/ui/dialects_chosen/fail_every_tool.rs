//! Built with `dialects = ["openai_strict", "gemini"]` in its package's
//! `[package.metadata.tool-sdk]`: every tool is checked against both, without an attribute.

use std::collections::HashMap;

use tool_sdk::{define_tool, tool};

/// Sets labels.
#[tool]
fn set_labels(
    id: u64,
    labels: HashMap<String, String>,
) -> String {
    format!("{id} {labels:?}")
}

fn main() {
    let _inline = define_tool!(
        /// Stores anything.
        #[tool(name = "store")]
        |value: serde_json::Value| value.to_string()
    );
}
