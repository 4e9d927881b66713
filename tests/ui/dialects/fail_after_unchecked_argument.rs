use std::collections::HashMap;

use tool_sdk::describe::Described;
use tool_sdk::tool;

/// Who asks.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Requester {
    /// Their name.
    name: String,
}

/// A request: a flattened struct, which schemars merges and the check cannot follow.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Request {
    #[serde(flatten)]
    requester: Requester,
    /// What they ask for.
    subject: String,
}

/// Files a request. The first argument is left to registration; the map after it is still
/// checked, and refused.
#[tool(dialects(openai_strict))]
fn file(
    request: Request,
    labels: HashMap<String, String>,
) -> String {
    format!("{request:?} {labels:?}")
}

fn main() {}
