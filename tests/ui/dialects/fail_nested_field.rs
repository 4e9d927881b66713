use std::collections::HashMap;

use tool_sdk::describe::Described;
use tool_sdk::tool;

/// Where a parcel goes.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
#[serde(rename_all = "camelCase")]
struct Destination {
    street_name: String,
    /// Notes for the courier, by topic: a map, deep inside the parameter.
    courier_notes: HashMap<String, String>,
}

/// A parcel.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Parcel {
    weight: f32,
    to: Destination,
}

/// Ships a parcel.
#[tool(dialects(openai_strict))]
fn ship(
    parcel: Parcel,
) -> String {
    format!("{parcel:?}")
}

fn main() {}
