//! Tools built at run time from a JSON Schema and a closure.

use serde_json::{json, Value};
use tool_sdk::{DynamicTool, Json, RegistryError, ToolError, ToolErrorKind, ToolRegistry};

fn weather() -> DynamicTool {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": { "type": "string", "minLength": 1 },
            "days": { "type": "integer", "minimum": 1, "maximum": 7 }
        },
        "required": ["city"],
        "additionalProperties": false
    });
    DynamicTool::new(
        "forecast",
        "Weather forecast.",
        schema,
        |args: Value| async move {
            let days = args.get("days").and_then(Value::as_u64).unwrap_or(1);
            if args["city"] == "Atlantis" {
                return Err(format!("no station in {}", args["city"]));
            }
            Ok(Json(
                json!({ "city": args["city"], "days": days, "sky": "clear" }),
            ))
        },
    )
    .expect("valid schema")
}

#[tokio::test]
async fn valid_arguments_reach_the_closure() {
    let mut registry = ToolRegistry::new();
    registry.register(weather()).unwrap();
    let output = registry
        .call("forecast", r#"{"city":"Oslo","days":3}"#)
        .await
        .unwrap();
    assert_eq!(
        output.content(),
        r#"{"city":"Oslo","days":3,"sky":"clear"}"#
    );
    let error = registry
        .call("forecast", r#"{"city":"Atlantis"}"#)
        .await
        .unwrap_err();
    assert_eq!(error.model_message(), r#"Error: no station in "Atlantis""#);
}

#[tokio::test]
async fn arguments_breaking_the_schema_are_refused_with_their_pointer() {
    let mut registry = ToolRegistry::new();
    registry.register(weather()).unwrap();
    for (arguments, pointer) in [
        (r#"{"city":"Oslo","days":9}"#, "/days"),
        (r#"{"city":""}"#, "/city"),
        (r#"{"city":3}"#, "/city"),
        (r#"{}"#, ""),
        (r#"{"city":"Oslo","extra":1}"#, ""),
    ] {
        let error = registry.call("forecast", arguments).await.unwrap_err();
        let ToolError::InvalidArguments { problem, .. } = &error else {
            panic!("{arguments}: {error:?}");
        };
        assert_eq!(problem.pointer, pointer, "{arguments}: {error}");
    }
    let error = registry.call("forecast", "null").await.unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::ArgumentsNotObject);
}

#[test]
fn unusable_schemas_and_names_are_refused_when_built() {
    let handler = |_: Value| async { "ok" };
    let error = DynamicTool::new("t", "d", json!({"type": "array"}), handler).unwrap_err();
    assert!(
        matches!(error, RegistryError::InvalidSchema { ref pointer, .. } if pointer == "/type"),
        "{error}"
    );
    let error = DynamicTool::new(
        "t",
        "d",
        json!({"type": "object", "properties": {"a": {"type": 5}}}),
        handler,
    )
    .unwrap_err();
    assert!(
        matches!(error, RegistryError::InvalidSchema { .. }),
        "{error}"
    );
    let error =
        DynamicTool::new("math.factorial", "d", json!({"type": "object"}), handler).unwrap_err();
    assert!(
        matches!(error, RegistryError::InvalidName { .. }),
        "{error}"
    );
}
