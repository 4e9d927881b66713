use tool_sdk::describe::{Described, Keyword, Shape};
use tool_sdk::tool;

/// A priority, sent as its number (as `serde_repr` does).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[schemars(inline)]
struct Priority(u8);

impl Described for Priority {
    const SHAPE: Shape = Shape::Schema(&[
        (Keyword::Type, Shape::Str("integer")),
        (Keyword::Enum, Shape::List(&[Shape::Int(1), Shape::Int(2), Shape::Int(3)])),
    ]);
}

/// Files a ticket.
#[tool(dialects(gemini))]
fn file_ticket(
    title: String,
    priority: Priority,
) -> String {
    format!("{title} {priority:?}")
}

fn main() {}
