use std::collections::HashMap;

use tool_sdk::tool;

/// Tags a document: a map, which strict OpenAI and Gemini's `Schema` cannot say, and
/// `parametersJsonSchema` can.
#[tool(dialects(openai_strict, gemini, gemini_json_schema))]
fn tag(
    document: String,
    /// Labels by name, nested where the error names it.
    labels: Option<Vec<HashMap<String, String>>>,
) -> String {
    format!("{document} {labels:?}")
}

fn main() {}
