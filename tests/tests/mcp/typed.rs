//! Typed results over MCP: a served tool whose return type has a schema lists `outputSchema`
//! and returns `structuredContent` with a text copy, which clients of other SDKs validate (the
//! Python `mcp` 2.x client on 2026-07-28 and legacy sessions, `mcp` 1.x, and the TypeScript
//! SDK's client); output that strays from its schema is refused by the server before any
//! client sees it.

use serde_json::{json, Value};
use tool_sdk_tests::mcp::{consumed, every_client};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

fn tool<'a>(seen: &'a Value, name: &str) -> &'a Value {
    seen["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|tool| tool["name"] == name))
        .unwrap_or_else(|| panic!("`{name}` is not listed: {}", seen["tools"]))
}

#[test]
fn typed_tools_list_their_output_schema_and_return_structured_content() {
    let calls = json!([
        {"name": "forecast", "arguments": {"city": "Porto"}},
        {"name": "primes", "arguments": {"count": 3}},
        {"name": "divide", "arguments": {"a": 1, "b": 4}},
    ]);
    for client in every_client() {
        let seen = client.run(&calls, &[SERVER]);
        assert_eq!(
            tool(&seen, "forecast")["outputSchema"],
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "celsius": {"type": "number", "format": "double", "description": "Degrees Celsius."},
                },
                "required": ["city", "celsius"],
                "description": "A forecast.",
            }),
            "{client:?}"
        );
        assert_eq!(
            tool(&seen, "primes")["outputSchema"],
            json!({
                "type": "object",
                "properties": {"result": {
                    "type": "array",
                    "items": {"type": "integer", "format": "uint32", "minimum": 0},
                }},
                "required": ["result"],
            }),
            "{client:?}"
        );
        // Text has no schema.
        assert!(
            tool(&seen, "transfer").get("outputSchema").is_none(),
            "{client:?}"
        );

        let forecast = &seen["calls"][0]["result"];
        assert_eq!(
            forecast["structuredContent"],
            json!({"city": "Porto", "celsius": 21.5}),
            "{client:?}"
        );
        assert_eq!(
            forecast["content"][0]["text"], r#"{"city":"Porto","celsius":21.5}"#,
            "{client:?}"
        );
        let primes = &seen["calls"][1]["result"];
        assert_eq!(
            primes["structuredContent"],
            json!({"result": [2, 3, 5]}),
            "{client:?}"
        );
        assert_eq!(primes["content"][0]["text"], "[2,3,5]", "{client:?}");
        let divided = &seen["calls"][2]["result"];
        assert_eq!(
            divided["structuredContent"],
            json!({"result": 0.25}),
            "{client:?}"
        );
    }
}

#[test]
fn output_that_strays_from_its_schema_is_refused_by_the_server() {
    let calls = json!([{"name": "thermometer", "arguments": {}}]);
    for client in every_client() {
        let seen = client.run(&calls, &[SERVER]);
        let result = &seen["calls"][0]["result"];
        assert_eq!(result["isError"], true, "{client:?}: {seen}");
        assert!(
            result.get("structuredContent").is_none(),
            "{client:?}: {result}"
        );
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(
                "Error: the tool's output does not fit its output schema at `/celsius`: \
                 \"19 °C\" is not of type \"number\""
            ),
            "{client:?}: {text}"
        );
    }
}

#[tokio::test]
async fn a_consumed_server_keeps_output_schemas_and_structured_results() {
    let (_client, registry) = consumed(tokio::process::Command::new(SERVER)).await;
    let schema_of = |name: &str| {
        registry
            .get(name)
            .and_then(|tool| tool.definition().output_schema.clone())
    };
    assert_eq!(
        schema_of("primes").map(|schema| schema["required"].clone()),
        Some(json!(["result"]))
    );
    assert_eq!(schema_of("transfer"), None);

    let output = registry
        .call("forecast", r#"{"city": "Faro"}"#)
        .await
        .expect("forecast answers");
    assert_eq!(
        output.structured(),
        Some(json!({"city": "Faro", "celsius": 21.5}))
    );
    let output = registry
        .call("primes", r#"{"count": 2}"#)
        .await
        .expect("primes answers");
    // As the server sent it, wrapped as its output schema says; the text stays the list.
    assert_eq!(output.structured(), Some(json!({"result": [2, 3]})));
    assert_eq!(output.content(), "[2,3]");
}
