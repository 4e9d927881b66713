use tool_sdk::describe::{Described, Keyword, Shape};
use tool_sdk::tool;

/// A number or its text, as a hand-written schema says it.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Amount {
    Number(f64),
    Text(String),
}

impl schemars::JsonSchema for Amount {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Amount".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["number", "string"] })
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Described for Amount {
    const SHAPE: Shape = Shape::Schema(&[(
        Keyword::Type,
        Shape::List(&[Shape::Str("number"), Shape::Str("string")]),
    )]);
}

/// Pays.
#[tool(dialects(gemini))]
fn pay(
    amount: Amount,
) -> String {
    format!("{amount:?}")
}

fn main() {}
