use tool_sdk::describe::{Definition, Described, Keyword, Shape};
use tool_sdk::tool;

/// An id whose hand-written schema points to a definition that is not there.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Id(String);

impl Described for Id {
    const SHAPE: Shape = Shape::Schema(&[(
        Keyword::Ref,
        Shape::Ref(&Definition {
            name: "Id",
            schema: Shape::Schema(&[(Keyword::Ref, Shape::Recursive("Missing"))]),
        }),
    )]);
}

/// Looks an id up: no dialect takes a `$ref` that leads nowhere.
#[tool(dialects(openai, anthropic, mcp, gemini_json_schema))]
fn look_up(
    id: Id,
) -> String {
    format!("{id:?}")
}

fn main() {}
