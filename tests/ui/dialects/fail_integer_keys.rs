use std::collections::BTreeMap;

use tool_sdk::tool;

/// Counts by hour: a map with integer keys, which schemars says with `patternProperties`. A
/// dialect that cannot say a map refuses it as it refuses any map; one that can say a map but
/// not the pattern of its keys refuses it too.
#[tool(dialects(openai_strict, anthropic_strict, gemini_json_schema))]
fn tally(
    counts: BTreeMap<u32, u32>,
) -> String {
    format!("{counts:?}")
}

fn main() {}
