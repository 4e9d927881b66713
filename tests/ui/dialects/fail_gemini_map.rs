use std::collections::HashMap;
use tool_sdk::tool;

/// Does its work.
#[tool(dialects(gemini))]
fn work(
    labels: HashMap<String, String>,
) -> String {
    format!("{:?}", labels)
}

fn main() {}
