#![deny(warnings)]

use tool_sdk::tool;

/// Moves a point.
#[tool(name = "move-point")]
fn translate(
    #[arg(rename = "dx", description = "Offset along x.")] delta_x: f64,
    #[arg(rename = "dy")] delta_y: f64,
) -> String {
    format!("{delta_x} {delta_y}")
}

fn main() {}
