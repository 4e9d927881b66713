use tool_sdk::tool;

/// Does its work.
#[tool(dialects(openai_strict))]
fn work(
    payload: serde_json::Value,
) -> String {
    format!("{:?}", payload)
}

fn main() {}
