use std::collections::BTreeMap;
use tool_sdk::tool;

/// Does its work.
#[tool(dialects(anthropic_strict))]
fn work(
    counts: BTreeMap<String, u32>,
) -> String {
    format!("{:?}", counts)
}

fn main() {}
