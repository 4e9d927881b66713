//! Tools built at run time from a JSON Schema and a closure.

use serde_json::{json, Value};
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::{
    define::Json,
    register::{DynamicTool, RegistryError},
    ToolError, ToolRegistry,
};

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
    assert!(
        matches!(error, ToolError::ArgumentsNotObject { .. }),
        "{error:?}"
    );
}

/// Function definitions from Java and JavaScript catalogues (BFCL's categories of them) write
/// their languages' type words where JSON Schema has its own.
fn foreign_type_words() -> Vec<(Value, &'static str, &'static str)> {
    vec![
        (
            json!({"type": "object", "properties": {"source": {"type": "String"}}}),
            "/properties/source/type",
            "String",
        ),
        (
            json!({"type": "object", "properties": {"opts": {"type": "object",
                "properties": {"size": {"type": "long"}}}}}),
            "/properties/opts/properties/size/type",
            "long",
        ),
        (
            json!({"type": "object", "properties": {"tags": {"type": "array",
                "items": {"type": "HashMap"}}}}),
            "/properties/tags/items/type",
            "HashMap",
        ),
        (
            json!({"type": "object", "properties": {"initial": {"type": ["char", "null"]}}}),
            "/properties/initial/type",
            "char",
        ),
    ]
}

#[test]
fn a_type_word_of_another_language_is_refused_at_its_property() {
    for (schema, pointer, word) in foreign_type_words() {
        let error =
            DynamicTool::new("convert", "d", schema, |_: Value| async { "ok" }).unwrap_err();
        let RegistryError::InvalidSchema {
            tool,
            pointer: at,
            message,
        } = &error
        else {
            panic!("{error:?}");
        };
        assert_eq!(
            (tool.as_str(), at.as_str()),
            ("convert", pointer),
            "{error}"
        );
        assert!(message.contains(&format!("\"{word}\"")), "{error}");
    }
}

#[test]
fn lowering_refuses_what_building_refuses_with_the_same_error() {
    for (schema, pointer, _) in foreign_type_words() {
        let Err(RegistryError::InvalidSchema { message, .. }) =
            DynamicTool::new("convert", "d", schema.clone(), |_: Value| async { "ok" })
        else {
            panic!("accepted: {schema}");
        };
        for dialect in Dialect::ALL {
            let error = lower("convert", &schema, dialect).unwrap_err();
            assert_eq!(
                (error.tool(), error.pointer(), error.rule()),
                ("convert", pointer, message.as_str()),
                "{dialect:?}"
            );
        }
    }
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
