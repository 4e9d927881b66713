//! With dialects chosen for every tool, every argument's type needs a description.

use tool_sdk::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Moves to a point.
#[tool]
fn move_to(point: Point) -> f64 {
    point.x + point.y
}

fn main() {}
