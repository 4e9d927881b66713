use tool_sdk::tool;

/// Does its work.
#[tool(dialects(gemini))]
fn work(
    span: (i32, i64),
) -> String {
    format!("{:?}", span)
}

fn main() {}
