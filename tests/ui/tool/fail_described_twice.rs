use tool_sdk::tool;

/// Greets a person.
#[tool]
fn greet(
    /// Who to greet.
    #[arg(description = "The person to greet.")]
    name: String,
) -> String {
    format!("Hello, {name}")
}

fn main() {}
