use tool_sdk::tool;

/// Greets a person.
#[tool]
fn greet(#[arg(default)] name: &str) -> String {
    format!("Hello, {name}")
}

fn main() {}
