//! Every parameter shape of the corpus (`tool_sdk_tests::corpus`), served over MCP and listed
//! and called by the TypeScript SDK's client, which checks each listed schema against its own
//! type of a tool: one schema it does not take makes it refuse the whole list, and then no tool
//! of the server can be used from it.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::mcp::McpServer;
use tool_sdk::{tool, ToolRegistry};
use tool_sdk_tests::corpus::corpus;
use tool_sdk_tests::mcp::OtherClient;

/// A result holding a value of any type: its output schema has `true` for a property.
#[derive(Serialize, JsonSchema)]
struct Echoed {
    value: Value,
}

/// Echoes any value back.
#[tool]
fn echo_any(value: Value) -> Echoed {
    Echoed { value }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_client_lists_and_calls_every_shape_of_the_corpus() {
    // Every shape MCP takes: all but a schema that is not one (a `$ref` leading nowhere).
    let entries: Vec<_> = corpus()
        .into_iter()
        .filter(|entry| {
            let definition = entry.tool.definition();
            lower(&definition.name, &definition.parameters, Dialect::Mcp).is_ok()
        })
        .collect();
    assert!(entries.len() > 40, "{} shapes", entries.len());
    assert!(entries.iter().any(|entry| entry.rust == "Value"));
    let mut registry = ToolRegistry::new();
    for entry in &entries {
        registry
            .register_arc(entry.tool.clone())
            .expect("the corpus has distinct names");
    }
    registry.register(EchoAnyTool).expect("echo_any registers");
    let server = McpServer::builder("corpus", "1.0.0")
        .build(registry)
        .expect("every shape of the corpus has an MCP form");
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let url = format!(
        "http://{}/mcp",
        listener.local_addr().expect("the bound address")
    );
    let shutdown = CancellationToken::new();
    tokio::spawn(server.serve_http(listener, shutdown.clone()));

    let mut calls: Vec<Value> = entries
        .iter()
        .map(|entry| json!({"name": entry.name, "arguments": entry.sample}))
        .collect();
    calls.push(json!({"name": "echo_any", "arguments": {"value": {"any": [1, "x"]}}}));
    let calls = Value::Array(calls);
    let seen = tokio::task::spawn_blocking(move || OtherClient::TypeScript.run(&calls, &[&url]))
        .await
        .expect("the client runs");
    shutdown.cancel();

    let listed: Vec<&str> = seen["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(listed.len(), entries.len() + 1, "{listed:?}");
    let results = seen["calls"].as_array().expect("the calls");
    assert_eq!(results.len(), entries.len() + 1, "{seen:#}");
    for (entry, result) in entries.iter().zip(results) {
        assert_eq!(
            result["result"]["isError"],
            json!(false),
            "{}: {result:#}",
            entry.name
        );
    }
    assert_eq!(
        results
            .last()
            .map(|echo| &echo["result"]["structuredContent"]),
        Some(&json!({"value": {"any": [1, "x"]}})),
        "{seen:#}"
    );
}
