use tool_sdk::tool;

/// Greets a person.
#[tool]
fn greet(name: impl Into<String>) -> String {
    name.into()
}

fn main() {}
