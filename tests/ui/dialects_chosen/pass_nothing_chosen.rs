#![deny(warnings)]

//! A manifest with metadata of other tools but none of tool-sdk's chooses no dialect: a tool
//! that every strict dialect refuses compiles.

use std::collections::HashMap;

use tool_sdk::{tool, Tool};

/// Stores anything under labels.
#[tool]
fn store(labels: HashMap<String, serde_json::Value>) -> usize {
    labels.len()
}

fn main() {
    assert_eq!(StoreTool.definition().name, "store");
}
