//! The output schema a tool's definition declares: from its return type, at compile time, for
//! `#[tool]`, `#[tools]` methods and `define_tool!` closures alike.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use tool_sdk::define::{output_schema, Json, Part};
use tool_sdk::{define_tool, tool, tools, Tool, ToolRegistry};

/// A forecast.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    /// Degrees Celsius.
    celsius: f64,
    sky: String,
}

/// Serializable, without a schema.
#[derive(Serialize)]
struct Opaque {
    n: u32,
}

/// Forecast, as `Json`.
#[tool]
fn in_json() -> Json<Forecast> {
    Json(Forecast {
        celsius: 20.0,
        sky: "clear".into(),
    })
}

/// Forecast, plain.
#[tool]
async fn plain() -> Forecast {
    Forecast {
        celsius: 20.0,
        sky: "clear".into(),
    }
}

/// Forecast, or an error.
#[tool]
fn fallible(fail: bool) -> Result<Json<Forecast>, String> {
    if fail {
        return Err("no forecast".into());
    }
    Ok(Json(Forecast {
        celsius: 20.0,
        sky: "clear".into(),
    }))
}

/// A list of numbers.
#[tool]
fn numbers() -> anyhow_like::Result<Vec<u32>> {
    Ok(vec![1, 2])
}

mod anyhow_like {
    pub(super) type Result<T> = std::result::Result<T, String>;
}

/// Text.
#[tool]
fn text() -> String {
    "hi".into()
}

/// Borrowed text.
#[tool]
fn borrowed() -> &'static str {
    "hi"
}

/// Nothing.
#[tool]
fn nothing() {}

/// Any JSON.
#[tool]
fn any_json() -> Value {
    json!({"a": 1})
}

/// Any JSON, marked as JSON.
#[tool]
fn any_json_marked() -> Json<Value> {
    Json(json!({"a": 1}))
}

/// Parts.
#[tool]
fn parts() -> Vec<Part> {
    vec![Part::text("hi")]
}

/// No schema to give.
#[tool]
fn opaque() -> Opaque {
    Opaque { n: 1 }
}

struct Station;

#[derive(Serialize, JsonSchema)]
struct Reading {
    millibars: u32,
}

#[tools]
impl Station {
    /// The reading, through `Self`.
    #[tool]
    fn read(&self) -> Json<<Self as Sensor>::Reading> {
        Json(Reading { millibars: 1013 })
    }
}

trait Sensor {
    type Reading;
}

impl Sensor for Station {
    type Reading = Reading;
}

fn schema_of(tool: &dyn Tool) -> Option<Value> {
    tool.definition().output_schema.clone()
}

#[test]
fn a_return_type_with_a_schema_gives_the_definition_its_output_schema() {
    let forecast = Some(output_schema::<Forecast>());
    assert_eq!(
        forecast.as_ref().unwrap()["properties"]["celsius"]["description"],
        "Degrees Celsius."
    );
    assert_eq!(schema_of(&InJsonTool), forecast);
    assert_eq!(schema_of(&PlainTool), forecast);
    assert_eq!(schema_of(&FallibleTool), forecast);
    assert_eq!(schema_of(&NumbersTool), Some(output_schema::<Vec<u32>>()));

    let mut registry = ToolRegistry::new();
    registry.register_set(Arc::new(Station)).unwrap();
    let read = registry.get("read").unwrap();
    assert_eq!(schema_of(read.as_ref()), Some(output_schema::<Reading>()));

    let inline = define_tool!(
        /// Sums two numbers.
        #[tool(name = "sum")]
        |a: i64, b: i64| -> Json<i64> { Json(a + b) }
    );
    assert_eq!(
        schema_of(&inline),
        Some(json!({"type": "integer", "format": "int64"}))
    );
}

#[test]
fn text_parts_and_untyped_values_have_none() {
    for tool in [
        &TextTool as &dyn Tool,
        &BorrowedTool,
        &NothingTool,
        &AnyJsonTool,
        &AnyJsonMarkedTool,
        &PartsTool,
        &OpaqueTool,
    ] {
        assert_eq!(schema_of(tool), None, "{}", tool.definition().name);
    }
    let inline = define_tool!(
        /// Greets.
        #[tool(name = "greet")]
        |name: String| format!("hello {name}")
    );
    assert_eq!(schema_of(&inline), None);
}
