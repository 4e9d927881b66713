#![deny(warnings)]

use tool_sdk::tool;

/// Searches the catalogue.
#[tool]
fn search(query: String, limit: Option<u32>, exact: Option<bool>) -> String {
    format!("{query} {limit:?} {exact:?}")
}

fn main() {}
