use tool_sdk::tool;

/// Does its work.
#[tool(dialects(gemini_json_schema))]
fn work(
    rows: Vec<serde_json::Value>,
) -> String {
    format!("{:?}", rows)
}

fn main() {}
