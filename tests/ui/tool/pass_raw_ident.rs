#![deny(warnings)]

use tool_sdk::tool;

/// Filters by kind.
#[tool]
fn r#filter(r#type: String, #[arg(default)] r#match: bool) -> String {
    format!("{type} {match}", type = r#type, match = r#match)
}

fn main() {}
