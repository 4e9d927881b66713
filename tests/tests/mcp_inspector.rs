//! The `mcp_server` example as the official MCP inspector's command-line mode sees it
//! (`npx @modelcontextprotocol/inspector@0.15.0 --cli`), a client nobody here wrote.

use std::process::Command;

use serde_json::{json, Value};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_quickstart_server");
const INSPECTOR: &str = "@modelcontextprotocol/inspector@0.15.0";

fn inspector(arguments: &[&str]) -> Value {
    let output = Command::new("npx")
        .args(["--yes", INSPECTOR, "--cli", SERVER])
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
