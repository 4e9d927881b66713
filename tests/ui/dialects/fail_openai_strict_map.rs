use std::collections::HashMap;
use tool_sdk::tool;

/// Does its work.
#[tool(dialects(openai_strict))]
fn work(
    labels: HashMap<String, String>,
) -> String {
    format!("{:?}", labels)
}

fn main() {}
