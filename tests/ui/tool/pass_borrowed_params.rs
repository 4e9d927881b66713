#![deny(warnings)]

use tool_sdk::tool;

#[derive(Clone, serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Joins words.
#[tool]
fn join(separator: &str, words: &[String], counts: &[u32]) -> String {
    format!("{} {counts:?}", words.join(separator))
}

/// Measures a point, asynchronously.
#[tool]
async fn norm(point: &Point, label: &str) -> String {
    format!(
        "{label}: {}",
        (point.x * point.x + point.y * point.y).sqrt()
    )
}

fn main() {}
