//! Lowering to provider dialects, checked against a reference nobody here wrote: the `openai`
//! Python package's own strict-schema transformation, on the BFCL corpus and the SDK's tools.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::describe::{check_lowering, check_schema_lock, lower, Dialect, SchemaLockError};
use tool_sdk::{tool, Tool, ToolRegistry};
use tool_sdk_tests::bfcl::load_all;
use tool_sdk_tests::oracles::{first_difference, openai_strict, python::openai_strict_transform};

/// A passenger.
#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Passenger {
    /// Full name.
    name: String,
    age: Option<u8>,
}

/// Cabin class.
#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
#[serde(rename_all = "snake_case")]
pub(super) enum Cabin {
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
) -> String {
    format!("{from} {} {} {nights}", passengers.len(), cabin.is_some())
}

/// A node of a tree.
#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Node {
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

/// Every schema strict mode can take is lowered to one that the `openai` package's own strict
/// transform leaves as it is, and that breaks none of OpenAI's documented rules; every schema
/// the lowering refuses still breaks a rule no lowering can mend once the package has
/// transformed it (a value without a type, a map, ...).
#[test]
fn our_strict_lowering_is_strict_by_the_openai_packages_standard() {
    let inputs = inputs();
    let schemas: Vec<Value> = inputs.iter().map(|(_, s)| s.clone()).collect();
    let python_of_input = openai_strict_transform(&schemas);
    let mut refused = BTreeMap::<String, usize>::new();
    let mut lowered = Vec::new();
    for (i, (name, schema)) in inputs.iter().enumerate() {
        match lower(name, schema, Dialect::OpenAiStrict) {
            Ok(strict) => lowered.push((i, strict)),
            Err(error) => {
                let unmendable: Vec<_> = openai_strict::violations(&python_of_input[i])
                    .into_iter()
                    .filter(|v| !v.mendable)
                    .collect();
                assert!(
                    !unmendable.is_empty(),
                    "{name}: refused ({error}), yet the package makes it strict: {}",
                    python_of_input[i]
                );
                *refused.entry(error.rule().to_owned()).or_default() += 1;
            }
        }
    }
    let ours: Vec<Value> = lowered.iter().map(|(_, strict)| strict.clone()).collect();
    let python_of_ours = openai_strict_transform(&ours);
    for ((i, strict), again) in lowered.iter().zip(&python_of_ours) {
        let name = &inputs[*i].0;
        if let Some(pointer) = first_difference(strict, again) {
            panic!(
                "{name}: at `{pointer}`: the openai package's strict transform changes our \
                 lowering ({strict} became {again})"
            );
        }
        let broken = openai_strict::violations(strict);
        assert!(
            broken.is_empty(),
            "{name}: breaks OpenAI's rules: {broken:?}"
        );
    }
    let differing = lowered
        .iter()
        .filter(|(i, strict)| *strict != python_of_input[*i])
        .count();
    println!(
        "{} schemas (BFCL and SDK tools): {} lowered, each a fixed point of the openai package \
         and within OpenAI's rules ({differing} differ from the package's output by the \
         documented extra strictness); refused: {refused:?}",
        inputs.len(),
        lowered.len()
    );
}

#[test]
fn the_documented_differences_are_the_ones_made() {
    let schema = BookFlightTool.definition().parameters.clone();
    let ours = lower("book_flight", &schema, Dialect::OpenAiStrict).unwrap();
    // 1. Optional properties are nullable and required.
    assert_eq!(
        ours["required"],
        json!(["from", "passengers", "cabin", "nights"])
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
    assert_eq!(error.tool(), "count_nodes");
    assert!(error.rule().contains("recursive"), "{error}");
    assert!(error.pointer().starts_with("/properties/root"), "{error}");
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
    assert!(error.rule().contains("10 levels"), "{error}");
    assert!(
        error.pointer().starts_with("/properties/x/properties/x"),
        "{error}"
    );
    let union = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
    let error = lower("union", &union, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!((error.tool(), error.pointer()), ("union", ""));
    let many: serde_json::Map<String, Value> = (0..5001)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let error = lower(
        "wide",
        &json!({"type": "object", "properties": many}),
        Dialect::OpenAiStrict,
    )
    .unwrap_err();
    assert!(error.rule().contains("5000"), "{error}");
}

#[test]
fn every_sdk_test_tool_lowers_cleanly_except_where_a_dialect_cannot() {
    let mut registry = ToolRegistry::new();
    registry.register(BookFlightTool).unwrap();
    check_lowering(&registry, &Dialect::ALL).unwrap();
    // A recursive type: Anthropic's strict tool use and Gemini take none.
    let errors = check_lowering(&sdk_tools(), &Dialect::ALL).unwrap_err();
    let refused: Vec<(&str, Dialect)> = errors
        .iter()
        .map(|error| (error.tool(), error.dialect()))
        .collect();
    assert_eq!(
        refused,
        [
            ("count_nodes", Dialect::AnthropicStrict),
            ("count_nodes", Dialect::Gemini)
        ],
        "{errors:?}"
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
        matches!(&error, SchemaLockError::Differs { diff, .. } if diff.contains("+ ") && diff.contains("count_nodes")),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("rerun with TOOL_SDK_WRITE_SCHEMA_LOCK=1"),
        "{error}"
    );
    // A lock that is there but cannot be read is said to be so, not written over.
    let unreadable = check_schema_lock(&one, &dir).unwrap_err();
    assert!(
        matches!(unreadable, SchemaLockError::Unreadable { .. }),
        "{unreadable}"
    );
}
