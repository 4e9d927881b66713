#![deny(warnings)]

//! Derived types that every strict dialect takes: nested documented structs, enums of each
//! serde representation, renames, defaults, a flattened map where maps are said, and a
//! recursive type where references stay.

use std::collections::HashMap;

use tool_sdk::describe::Described;
use tool_sdk::{tool, Tool};

/// A line of an order.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Line {
    /// What.
    product_id: String,
    /// How many.
    #[schemars(range(min = 1, max = 99))]
    quantity: u32,
    #[serde(default)]
    gift_wrap: bool,
}

/// How to pay.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
#[serde(tag = "method", rename_all = "snake_case")]
enum Payment {
    Card { last_four: String },
    Invoice,
}

/// A priority.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
enum Priority {
    Low,
    High,
}

/// An untagged reference: an id or a name.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
#[serde(untagged)]
enum Reference {
    Id(u64),
    Name(String),
}

/// Places an order.
#[tool(dialects(openai_strict, anthropic_strict, gemini, gemini_json_schema))]
fn place(
    lines: Vec<Line>,
    payment: Payment,
    priority: Option<Priority>,
    customer: Reference,
) -> String {
    format!("{lines:?} {payment:?} {priority:?} {customer:?}")
}

/// A category and its subcategories.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Category {
    name: String,
    children: Vec<Category>,
}

/// Labels, with any extra ones.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Labels {
    main: String,
    #[serde(flatten)]
    extra: HashMap<String, String>,
}

/// Files a category: recursion where references stay, a flattened map where maps are said.
#[tool(dialects(openai_strict, gemini_json_schema))]
fn file(category: Category) -> String {
    format!("{category:?}")
}

/// Labels a thing.
#[tool(dialects(gemini_json_schema))]
fn label(labels: Labels) -> String {
    format!("{labels:?}")
}

fn main() {
    assert_eq!(PlaceTool.definition().name, "place");
    assert_eq!(FileTool.definition().name, "file");
    assert_eq!(LabelTool.definition().name, "label");
}
