use tool_sdk::tool;

/// Echoes.
#[tool(dialects(openai_strict, claude, gemini, gemini))]
fn echo(text: String) -> String {
    text
}

/// Echoes twice.
#[tool(dialects = "gemini")]
fn echo_twice(text: String) -> String {
    text.repeat(2)
}

fn main() {}
