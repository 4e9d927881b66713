use tool_sdk::tool;

/// Greets a person.
#[tool]
fn greet(name: &str, title: Option<&str>) -> String {
    format!("Hello, {} {name}", title.unwrap_or_default())
}

fn main() {}
