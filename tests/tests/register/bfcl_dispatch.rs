//! Real data: every function of the BFCL corpus as a dynamic tool; every ground-truth call must
//! validate and dispatch, and broken calls must get the right classified error.

use serde_json::{json, Value};
use tool_sdk::{
    define::Json,
    register::{provider_name, DynamicTool},
    ToolError, ToolRegistry,
};
use tool_sdk_tests::bfcl::{load_all, Entry, BFCL_EVAL_VERSION};

/// A registry of the entry's functions, each echoing its arguments. BFCL names such as
/// `math.factorial` are mapped onto the provider rule (`math_factorial`), as BFCL's own OpenAI
/// handler does.
fn registry(entry: &Entry) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for function in &entry.functions {
        let tool = DynamicTool::new(
            provider_name(&function.name),
            function.description.clone(),
            function.parameters.clone(),
            |arguments: Value| async move { Json(arguments) },
        )
        .unwrap_or_else(|e| panic!("{}: {} refused: {e}", entry.id, function.name));
        match registry.register(tool) {
            Ok(_) => {}
            // An entry may offer the same function twice; the registry keeps the first.
            Err(tool_sdk::register::RegistryError::DuplicateName(_)) => {}
            Err(e) => panic!("{}: {e}", entry.id),
        }
    }
    registry
}

/// A value of a JSON type the schema does not allow for this parameter.
/// `None` when the schema allows any type.
fn wrong_type(schema: &Value) -> Option<Value> {
    match schema.get("type").and_then(Value::as_str)? {
        "string" => Some(json!(12345)),
        "object" => Some(json!("not an object")),
        _ => Some(json!({ "not": "this" })),
    }
}

#[tokio::test]
async fn every_bfcl_ground_truth_call_validates_and_dispatches() {
    let entries = load_all();
    let (mut functions, mut calls, mut wrong_types, mut missing, mut unknown) = (0, 0, 0, 0, 0);
    let mut refused = Vec::new();
    for entry in &entries {
        let registry = registry(entry);
        functions += entry.functions.len();
        for (name, arguments) in &entry.ground_truth {
            let tool = provider_name(name);
            let text = arguments.to_string();
            let output = match registry.call(&tool, &text).await {
                Ok(output) => output,
                Err(error) => {
                    refused.push(format!("{} {name}: {error}", entry.id));
                    continue;
                }
            };
            assert_eq!(
                serde_json::from_str::<Value>(output.content()).unwrap(),
                *arguments,
                "{}: the tool received other arguments",
                entry.id
            );
            calls += 1;

            let function = entry.functions.iter().find(|f| &f.name == name).unwrap();
            let required: Vec<&str> = function.parameters["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();

            // A wrong type for a required parameter: refused, pointing at it.
            let typed = required.iter().find_map(|p| {
                arguments.get(*p)?;
                Some((*p, wrong_type(&function.parameters["properties"][*p])?))
            });
            if let Some((param, value)) = typed {
                let mut broken = arguments.clone();
                broken[param] = value;
                let error = registry.call(&tool, &broken.to_string()).await.unwrap_err();
                let ToolError::InvalidArguments { problem, .. } = &error else {
                    panic!("{}: expected invalid arguments, got {error:?}", entry.id);
                };
                assert!(
                    problem.pointer.starts_with(&format!("/{param}")),
                    "{}: {error}",
                    entry.id
                );
                wrong_types += 1;
            }

            // A required parameter left out: refused.
            if let Some(param) = required.first() {
                let mut broken = arguments.clone();
                broken.as_object_mut().unwrap().remove(*param);
                let error = registry.call(&tool, &broken.to_string()).await.unwrap_err();
                assert!(
                    matches!(error, ToolError::InvalidArguments { .. }),
                    "{}: {error}",
                    entry.id
                );
                assert!(error.to_string().contains(*param), "{}: {error}", entry.id);
                missing += 1;
            }
        }

        // A tool that is not offered: unknown, with the closest offered names.
        let error = registry.call("no_such_function", "{}").await.unwrap_err();
        assert!(matches!(error, ToolError::UnknownTool { .. }), "{error:?}");
        unknown += 1;
    }
    println!(
        "BFCL: {} entries, {functions} functions, {calls} ground-truth calls dispatched; \
         refused as expected: {wrong_types} wrong types, {missing} missing parameters, {unknown} unknown tools",
        entries.len()
    );
    for line in &refused {
        println!("refused: {line}");
    }
    // Two ground-truth calls of the corpus contradict their own schema, and are refused as they
    // should be: `parallel_multiple_21` passes the Python expression "data['sales']" where an
    // array is declared, `parallel_multiple_94` passes "apple" in an array of integers.
    let refused_ids: Vec<&str> = refused.iter().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(
        refused_ids,
        ["parallel_multiple_21", "parallel_multiple_94"]
    );
    assert_eq!(entries.len(), 1000);
    assert_eq!(calls + refused.len(), 1747);
}

/// The corpus the tests read is the one the test script fetches: one pinned version in both.
#[test]
fn the_test_script_fetches_the_version_the_tests_read() {
    let script = include_str!("../../../scripts/bfcl.sh");
    let pinned = script
        .lines()
        .find_map(|line| line.strip_prefix("BFCL_VERSION="))
        .expect("scripts/bfcl.sh pins BFCL_VERSION");
    assert_eq!(pinned, BFCL_EVAL_VERSION);
}
