use tool_sdk::tool;

/// Does its work.
#[tool(dialects(openai_strict))]
fn work(
    rows: Vec<serde_json::Value>,
) -> String {
    format!("{:?}", rows)
}

fn main() {}
