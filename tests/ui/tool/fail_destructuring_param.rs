use tool_sdk::tool;

/// Adds two numbers.
#[tool]
fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
