#![deny(warnings)]

use tool_sdk::tool;

/// Adds two numbers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Reports the time; takes no arguments.
#[tool]
pub fn now() -> String {
    String::from("noon")
}

fn main() {}
