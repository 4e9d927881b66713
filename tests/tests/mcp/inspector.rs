//! The `mcp_server` example as the official MCP inspector's command-line mode sees it
//! (`npx @modelcontextprotocol/inspector@0.15.0 --cli`), a client nobody here wrote: over
//! stdio, and over streamable HTTP.

use std::process::Command;

use serde_json::{json, Value};
use tool_sdk_tests::mcp::HttpServer;

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_quickstart_server");
const INSPECTOR: &str = "@modelcontextprotocol/inspector@0.15.0";

fn inspector(arguments: &[&str]) -> Value {
    inspector_of(SERVER, arguments)
}

/// The inspector run against `target`: a server command, or a URL.
fn inspector_of(target: &str, arguments: &[&str]) -> Value {
    let output = Command::new("npx")
        .args(["--yes", INSPECTOR, "--cli", target])
        .args(arguments)
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "npx could not be started ({error}): these tests need Node.js 20 or newer and \
                 npm on the PATH"
            )
        });
    assert!(
        output.status.success(),
        "the inspector failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the inspector printed no JSON ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn the_inspector_lists_the_tools() {
    let listed = inspector(&["--method", "tools/list"]);
    let tools = listed["tools"].as_array().expect("a list of tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["get_weather", "save_note", "list_notes", "clear_notes"]
    );
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["city"]));
    assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);
}

#[test]
fn the_inspector_calls_a_tool() {
    let result = inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "get_weather",
        "--tool-arg",
        "city=Lisbon",
    ]);
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"city": "Lisbon", "temperature": 18.5, "unit": "celsius", "sky": "partly cloudy"})
    );
}

#[test]
fn the_inspector_sees_a_classified_error() {
    let result = inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "save_note",
        "--tool-arg",
        "text= ",
    ]);
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Error: a note cannot be empty"
    );
}

#[test]
fn the_inspector_lists_and_calls_over_http() {
    let server = HttpServer::start(std::process::Command::new(SERVER));
    let over_http = |arguments: &[&str]| {
        let mut all = vec!["--transport", "http"];
        all.extend_from_slice(arguments);
        inspector_of(&server.url, &all)
    };

    let listed = over_http(&["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        ["get_weather", "save_note", "list_notes", "clear_notes"]
    );

    let result = over_http(&[
        "--method",
        "tools/call",
        "--tool-name",
        "get_weather",
        "--tool-arg",
        "city=Lisbon",
        "--tool-arg",
        "unit=fahrenheit",
    ]);
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["temperature"], 65.3, "{result}");

    // One notebook behind every session: a note saved by one inspector run is listed by the
    // next.
    let saved = over_http(&[
        "--method",
        "tools/call",
        "--tool-name",
        "save_note",
        "--tool-arg",
        "text=umbrella",
    ]);
    assert_eq!(saved["isError"], false, "{saved}");
    let listed = over_http(&["--method", "tools/call", "--tool-name", "list_notes"]);
    assert_eq!(
        listed["structuredContent"],
        json!({"result": ["umbrella"]}),
        "{listed}"
    );
}
