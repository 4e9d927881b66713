#![deny(warnings)]

//! With dialects chosen for every tool, a tool can choose its own, none, or leave an argument
//! to registration; described types and what the lowering handles compile.

use std::collections::HashMap;

use tool_sdk::describe::Described;
use tool_sdk::{tool, Tool};

/// A point.
#[derive(serde::Deserialize, schemars::JsonSchema, Described)]
struct Point {
    x: f64,
    y: f64,
}

/// Moves to a point, optionally slowly.
#[tool]
fn move_to(point: Point, slowly: Option<bool>) -> String {
    format!("{} {slowly:?}", point.x + point.y)
}

/// Labels, for the `v1beta` API only, which says maps.
#[tool(dialects(gemini_json_schema))]
fn label(labels: HashMap<String, String>) -> usize {
    labels.len()
}

/// Checked against nothing.
#[tool(dialects())]
fn anything(value: serde_json::Value) -> String {
    value.to_string()
}

/// A foreign map left to registration.
#[tool]
fn annotate(text: String, #[arg(unchecked)] notes: HashMap<String, String>) -> String {
    format!("{text} {notes:?}")
}

fn main() {
    for tool in [
        MoveToTool.definition().name.clone(),
        LabelTool.definition().name.clone(),
        AnythingTool.definition().name.clone(),
        AnnotateTool.definition().name.clone(),
    ] {
        assert!(!tool.is_empty());
    }
}
