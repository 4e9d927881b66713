//! Lowering to provider dialects, checked against a reference nobody here wrote: the `openai`
//! Python package's own strict-schema transformation, on the BFCL corpus and the SDK's tools.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::describe::{
    __openai_reference_strict, check_lowering, check_schema_lock, lower, Dialect,
};
use tool_sdk::{tool, Tool, ToolRegistry};
use tool_sdk_tests::bfcl::load_all;

/// A passenger.
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Passenger {
    /// Full name.
    name: String,
    age: Option<u8>,
}

/// Cabin class.
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Cabin {
    /// The cheapest seats.
    Economy,
    Business,
}

/// Books a flight.
#[tool]
fn book_flight(
    /// Departure airport.
    from: String,
    passengers: Vec<Passenger>,
    #[arg(default)] cabin: Option<Cabin>,
    /// Nights away, if it is a return trip.
    #[arg(default = 0)]
    nights: u16,
    tags: BTreeMap<String, String>,
) -> String {
    format!(
        "{from} {} {} {nights} {}",
        passengers.len(),
        cabin.is_some(),
        tags.len()
    )
}

/// A node of a tree.
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Node {
    label: String,
    children: Vec<Node>,
}

/// Counts a tree's nodes.
#[tool]
fn count_nodes(root: Node) -> usize {
    1 + root.children.len()
}

fn sdk_tools() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(BookFlightTool).unwrap();
    registry.register(CountNodesTool).unwrap();
    registry
}

fn python() -> String {
    std::env::var("TOOL_SDK_PYTHON").unwrap_or_else(|_| {
        panic!("TOOL_SDK_PYTHON is not set: run ./scripts/test.sh, which installs the `openai` package in .venv")
    })
}

/// What the `openai` package makes of each schema.
fn reference(schemas: &[Value]) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/python/ensure_strict.py");
    let mut child = Command::new(python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the python of the virtual environment runs");
    let mut input = String::new();
    for schema in schemas {
        input.push_str(&schema.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "python failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn inputs() -> Vec<(String, Value)> {
    let mut inputs: Vec<(String, Value)> = Vec::new();
    for entry in load_all() {
        for function in entry.functions {
            if !inputs
                .iter()
                .any(|(n, s)| *n == function.name && *s == function.parameters)
            {
                inputs.push((function.name, function.parameters));
            }
        }
    }
    for definition in sdk_tools().definitions() {
        inputs.push((definition.name.clone(), definition.parameters.clone()));
    }
    inputs
}

#[test]
fn our_port_of_the_reference_equals_the_reference_and_our_lowering_is_strict_by_its_standard() {
    let inputs = inputs();
    let schemas: Vec<Value> = inputs.iter().map(|(_, s)| s.clone()).collect();
    let python_of_input = reference(&schemas);
    let ours: Vec<Value> = inputs
        .iter()
        .map(|(name, schema)| {
            lower(name, schema, Dialect::OpenAiStrict).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    let python_of_ours = reference(&ours);
    for (i, (name, schema)) in inputs.iter().enumerate() {
        // 1. The port is exact: same input, same output as the openai package.
        let port = __openai_reference_strict(schema).unwrap();
        assert_eq!(
            port, python_of_input[i],
            "{name}: the port differs from the openai package"
        );
        // 2. Our lowering adds only the documented strictness: the openai package finds nothing
        //    left to change in it.
        assert_eq!(
            python_of_ours[i], ours[i],
            "{name}: the openai package would change our lowering"
        );
    }
    let differing = (0..inputs.len())
        .filter(|&i| ours[i] != python_of_input[i])
        .count();
    println!(
        "{} schemas (BFCL and SDK tools): port == openai package for all; lowering is a fixed point \
         of the openai package for all; {differing} differ from the package's output by the \
         documented extra strictness",
        inputs.len()
    );
}

#[test]
fn the_documented_differences_are_the_ones_made() {
    let schema = BookFlightTool.definition().parameters.clone();
    let ours = lower("book_flight", &schema, Dialect::OpenAiStrict).unwrap();
    // 1. Optional properties are nullable and required.
    assert_eq!(
        ours["required"],
        json!(["from", "passengers", "cabin", "nights", "tags"])
    );
    assert_eq!(
        ours["properties"]["nights"]["type"],
        json!(["integer", "null"])
    );
    // 2. oneOf became anyOf.
    assert!(ours["$defs"]["Cabin"].get("oneOf").is_none());
    assert!(ours["$defs"]["Cabin"]["anyOf"].is_array());
    // 3. Unsupported formats and defaults are gone; supported keywords stay.
    assert!(ours["properties"]["nights"].get("format").is_none());
    assert!(ours["properties"]["nights"].get("default").is_none());
    assert_eq!(ours["properties"]["nights"]["minimum"], 0);
    // Every object closed.
    assert_eq!(ours["$defs"]["Passenger"]["additionalProperties"], false);
    assert_eq!(
        ours["$defs"]["Passenger"]["required"],
        json!(["name", "age"])
    );
}

fn walk<'a>(
    value: &'a Value,
    pointer: String,
    visit: &mut dyn FnMut(&str, &'a serde_json::Map<String, Value>),
) {
    match value {
        Value::Object(object) => {
            visit(&pointer, object);
            for (key, child) in object {
                walk(child, format!("{pointer}/{key}"), visit);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, format!("{pointer}/{i}"), visit);
            }
        }
        _ => {}
    }
}

#[test]
fn gemini_gets_its_openapi_subset() {
    let gemini = lower(
        "book_flight",
        &BookFlightTool.definition().parameters,
        Dialect::Gemini,
    )
    .unwrap();
    walk(&gemini, String::new(), &mut |pointer, object| {
        if pointer.ends_with("/properties") {
            return; // property names, not keywords
        }
        assert!(
            !object.get("type").is_some_and(Value::is_array),
            "type array at {pointer}"
        );
        for banned in [
            "$ref",
            "$defs",
            "additionalProperties",
            "oneOf",
            "const",
            "$schema",
        ] {
            assert!(!object.contains_key(banned), "{banned} at {pointer}");
        }
    });
    assert_eq!(
        gemini["properties"]["passengers"]["items"]["properties"]["age"]["nullable"],
        true
    );
    // A recursive type cannot be inlined: a precise error.
    let error = lower(
        "count_nodes",
        &CountNodesTool.definition().parameters,
        Dialect::Gemini,
    )
    .unwrap_err();
    assert_eq!(error.tool, "count_nodes");
    assert!(error.rule.contains("recursive"), "{error}");
    assert!(error.pointer.starts_with("/properties/root"), "{error}");
}

#[test]
fn anthropic_strict_drops_bounds_and_closes_objects() {
    let strict = lower(
        "book_flight",
        &BookFlightTool.definition().parameters,
        Dialect::AnthropicStrict,
    )
    .unwrap();
    walk(&strict, String::new(), &mut |pointer, object| {
        if pointer.ends_with("/properties") || pointer.ends_with("/$defs") {
            return;
        }
        for bound in [
            "minimum",
            "maximum",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
        ] {
            assert!(!object.contains_key(bound), "{bound} at {pointer}");
        }
        if object.get("type") == Some(&json!("object")) {
            assert_eq!(
                object.get("additionalProperties"),
                Some(&json!(false)),
                "open object at {pointer}"
            );
        }
    });
    for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Mcp] {
        let same = lower(
            "book_flight",
            &BookFlightTool.definition().parameters,
            dialect,
        )
        .unwrap();
        assert_eq!(&same, &BookFlightTool.definition().parameters);
    }
}

#[test]
fn what_strict_mode_refuses_is_a_precise_error() {
    let mut deep = json!({"type": "string"});
    for _ in 0..12 {
        deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"]});
    }
    let error = lower("deep", &deep, Dialect::OpenAiStrict).unwrap_err();
    assert!(error.rule.contains("10 levels"), "{error}");
    assert!(
        error.pointer.starts_with("/properties/x/properties/x"),
        "{error}"
    );
    let union = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
    let error = lower("union", &union, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!((error.tool.as_str(), error.pointer.as_str()), ("union", ""));
    let many: serde_json::Map<String, Value> = (0..5001)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let error = lower(
        "wide",
        &json!({"type": "object", "properties": many}),
        Dialect::OpenAiStrict,
    )
    .unwrap_err();
    assert!(error.rule.contains("5000"), "{error}");
}

#[test]
fn every_sdk_test_tool_lowers_cleanly_except_where_a_dialect_cannot() {
    let mut registry = ToolRegistry::new();
    registry.register(BookFlightTool).unwrap();
    check_lowering(&registry, &Dialect::ALL).unwrap();
    let errors = check_lowering(&sdk_tools(), &Dialect::ALL).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        (errors[0].tool.as_str(), errors[0].dialect),
        ("count_nodes", Dialect::Gemini)
    );
}

#[test]
fn the_schema_lock_catches_a_changed_schema() {
    let locked = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tools.schema.lock");
    check_schema_lock(&sdk_tools(), locked).unwrap();

    let dir = std::env::temp_dir().join(format!("tool-sdk-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tools.schema.lock");
    let _ = std::fs::remove_file(&path);
    let mut one = ToolRegistry::new();
    one.register(BookFlightTool).unwrap();
    check_schema_lock(&one, &path).unwrap(); // written the first time
    check_schema_lock(&one, &path).unwrap(); // then compared
    let error = check_schema_lock(&sdk_tools(), &path).unwrap_err();
    assert!(
        error.contains("+ ") && error.contains("count_nodes"),
        "{error}"
    );
}
