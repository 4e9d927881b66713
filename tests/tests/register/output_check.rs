//! What a tool returns is checked against its output schema in debug builds (as these tests
//! are): output that strays is the tool's failure, naming where; output that fits passes as
//! it is; and a dynamic tool's output schema that does not compile is refused.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use tool_sdk::define::{Json, ToolError};
use tool_sdk::register::{DynamicTool, RegistryError};
use tool_sdk::{tool, ToolRegistry};
use tool_sdk_tests::stray::StrayReading;

/// Reads the thermometer.
#[tool]
fn thermometer() -> Json<StrayReading> {
    Json(StrayReading { celsius: 19.0 })
}

#[derive(Serialize, JsonSchema)]
struct Honest {
    celsius: f64,
}

/// Reads the honest thermometer.
#[tool]
fn honest() -> Result<Json<Honest>, String> {
    Ok(Json(Honest { celsius: 19.0 }))
}

#[tokio::test]
async fn output_that_strays_from_its_schema_is_the_tools_failure() {
    let mut registry = ToolRegistry::new();
    registry.register(ThermometerTool).unwrap();
    registry.register(HonestTool).unwrap();
    let error = registry.call("thermometer", "{}").await.unwrap_err();
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.model_message(),
        "Error: the tool's output does not fit its output schema at `/celsius`: \"19 °C\" is \
         not of type \"number\""
    );
    let output = registry.call("honest", "{}").await.unwrap();
    assert_eq!(output.content(), r#"{"celsius":19.0}"#);
    assert_eq!(output.structured(), Some(json!({"celsius": 19.0})));
}

#[tokio::test]
async fn a_dynamic_tools_output_is_checked_and_a_bad_output_schema_refused() {
    let schema = json!({"type": "object", "properties": {}});
    let count = DynamicTool::new("count", "Counts.", schema.clone(), |_: Value| async {
        Json(json!({"n": "three"}))
    })
    .unwrap()
    .with_output_schema(json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }));
    let mut registry = ToolRegistry::new();
    registry.register(count).unwrap();
    let error = registry.call("count", "{}").await.unwrap_err();
    assert!(
        error
            .model_message()
            .contains("does not fit its output schema at `/n`"),
        "{error}"
    );

    let bad = DynamicTool::new("bad", "Bad.", schema, |_: Value| async { "x" })
        .unwrap()
        .with_output_schema(json!({"type": "integr"}));
    let refused = ToolRegistry::new().register(bad).map(|_| ()).unwrap_err();
    assert!(
        matches!(refused, RegistryError::InvalidSchema { .. }),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("output schema"), "{refused}");
}
