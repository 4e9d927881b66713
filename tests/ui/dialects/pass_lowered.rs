#![deny(warnings)]

//! What the lowering handles is no error: optional fields under strict mode, formats a dialect
//! drops, tuples of one type, a value of any type where the dialect says it, an argument left
//! to registration, and no dialect at all.

use std::collections::HashMap;

use tool_sdk::{define_tool, tool, Tool};

/// Books a table.
#[tool(dialects(openai_strict, anthropic_strict, gemini, gemini_json_schema))]
fn book(
    /// Where.
    restaurant: String,
    /// How many (a `uint8` format and bounds, which strict dialects drop or describe).
    guests: u8,
    /// When, optional: strict mode makes it nullable.
    at: Option<String>,
    /// Two of one type: an array of one item type.
    seats: (u32, u32),
    #[arg(default)] vegetarian: bool,
    /// Extras, not checked here: registration checks them.
    #[arg(unchecked)]
    extras: HashMap<String, String>,
) -> String {
    format!("{restaurant} {guests} {at:?} {seats:?} {vegetarian} {extras:?}")
}

/// Stores anything: `parametersJsonSchema` says a value of any type.
#[tool(dialects(gemini_json_schema, openai, anthropic, mcp))]
fn store(key: String, value: serde_json::Value) -> String {
    format!("{key}={value}")
}

/// Checked against nothing, however the crate is built.
#[tool(dialects())]
fn anything(labels: HashMap<String, serde_json::Value>) -> usize {
    labels.len()
}

fn main() {
    assert_eq!(BookTool.definition().name, "book");
    let _ = (StoreTool, AnythingTool);
    let inline = define_tool!(
        /// Counts words.
        #[tool(name = "count_words", dialects(openai_strict, gemini))]
        |text: String, limit: Option<usize>| text.split_whitespace().count().min(limit.unwrap_or(usize::MAX))
    );
    assert_eq!(inline.definition().name, "count_words");
}
