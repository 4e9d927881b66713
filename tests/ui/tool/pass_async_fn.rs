#![deny(warnings)]

use tool_sdk::tool;

/// Fetches a page.
#[tool]
async fn fetch(url: String) -> String {
    url
}

/// Waits, then answers.
#[tool(description = "Waits, then answers.")]
async fn wait() {}

fn main() {}
