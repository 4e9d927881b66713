use tool_sdk::tool;

/// Does its work.
#[tool(dialects(gemini))]
fn work(
    payload: serde_json::Value,
) -> String {
    format!("{:?}", payload)
}

fn main() {}
