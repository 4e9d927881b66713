use tool_sdk::describe::Described;
use tool_sdk::tool;

/// A comment and its replies.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Comment {
    text: String,
    reply: Option<Box<Comment>>,
}

/// Posts a thread.
#[tool(dialects(anthropic_strict))]
fn post(
    thread: Comment,
) -> String {
    format!("{thread:?}")
}

fn main() {}
