use tool_sdk::tool;

/// Does its work.
#[tool(dialects(anthropic_strict))]
fn work(
    pair: (String, u32),
) -> String {
    format!("{:?}", pair)
}

fn main() {}
