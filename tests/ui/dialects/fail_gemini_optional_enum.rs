use tool_sdk::describe::Described;
use tool_sdk::tool;

/// A size, its variants inline (no definition of their own).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
#[schemars(inline)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Large,
}

/// Orders a coffee.
#[tool(dialects(gemini))]
fn order(
    /// The size, if it matters: `null` joins the enumeration, and Gemini enumerates strings.
    size: Option<Size>,
) -> String {
    format!("{size:?}")
}

fn main() {}
