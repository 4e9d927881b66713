//! `#[tool]` on free functions: names, descriptions, parameters, results.

use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_sdk::{tool, Tool, ToolRegistry};

/// Adds two numbers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Echoes a greeting.
#[tool(name = "say_hello")]
async fn greet(name: &str, #[arg(default = 1)] times: u32, excited: Option<bool>) -> String {
    let mark = if excited.unwrap_or(false) { "!" } else { "." };
    format!("Hello, {name}{mark}").repeat(times as usize)
}

/// Moves a point.
#[tool]
fn translate(point: Point, #[arg(rename = "dx")] delta_x: f64) -> Result<Point, String> {
    if delta_x.is_nan() {
        return Err("delta is NaN".into());
    }
    Ok(Point {
        x: point.x + delta_x,
        y: point.y,
    })
}

#[tokio::test]
async fn free_fn_tools_dispatch_through_the_registry() {
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).unwrap();
    registry.register(GreetTool).unwrap();
    registry.register(TranslateTool).unwrap();

    assert_eq!(
        registry
            .call("add", r#"{"a":2,"b":3}"#)
            .await
            .unwrap()
            .content(),
        "5"
    );
    assert_eq!(
        registry
            .call("say_hello", r#"{"name":"Ana","times":2}"#)
            .await
            .unwrap()
            .content(),
        "Hello, Ana.Hello, Ana."
    );
    assert_eq!(
        registry
            .call("translate", r#"{"point":{"x":1,"y":2},"dx":0.5}"#)
            .await
            .unwrap()
            .content(),
        r#"{"x":1.5,"y":2.0}"#
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&TranslateTool.definition().parameters).unwrap()
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&GreetTool.definition().parameters).unwrap()
    );
    assert_eq!(add(1, 2), 3);
    let _ = json!({});
}
