//! The `mcp_server` example served over stdio, as the reference Python client (`mcp` package,
//! `ClientSession`) sees it: identity, listed tools with schemas and annotations, a JSON
//! result with `structuredContent`, classified errors, and a tool that needs a decision.

use serde_json::{json, Value};
use tool_sdk_tests::mcp::python_client;

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_quickstart_server");

fn tool<'a>(seen: &'a Value, name: &str) -> &'a Value {
    seen["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|tool| tool["name"] == name))
        .unwrap_or_else(|| panic!("`{name}` is not listed: {}", seen["tools"]))
}

fn text(result: &Value) -> &str {
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn lists_the_tools_with_schemas_and_annotations() {
    let seen = python_client(&json!([]), &[SERVER]);

    // The application's identity, not the library's.
    assert_eq!(seen["serverInfo"]["name"], "tool-sdk-quickstart");
    assert_eq!(seen["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        seen["instructions"],
        "Weather by city, and a notebook shared by every call."
    );

    let names: Vec<&str> = seen["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        ["get_weather", "save_note", "list_notes", "clear_notes"]
    );

    let weather = tool(&seen, "get_weather");
    assert_eq!(
        weather["description"],
        "Gets the current weather for a city."
    );
    let schema = &weather["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["city"]));
    assert_eq!(
        schema["properties"]["city"]["description"],
        "The city, such as \"Lisbon\"."
    );
    assert_eq!(schema["properties"]["unit"]["default"], "celsius");
    assert_eq!(weather["annotations"], json!({"readOnlyHint": true}));

    assert_eq!(
        tool(&seen, "save_note")["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": false})
    );
    assert_eq!(
        tool(&seen, "list_notes")["annotations"],
        json!({"readOnlyHint": true})
    );
    // `confirm` without an explicit `destructive`: listed as destructive.
    assert_eq!(
        tool(&seen, "clear_notes")["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true})
    );
}

#[test]
fn calls_return_text_and_structured_content() {
    let calls = json!([
        {"name": "get_weather", "arguments": {"city": "Boston", "unit": "fahrenheit"}},
        {"name": "save_note", "arguments": {"text": "umbrella"}},
        {"name": "save_note", "arguments": {"text": "boots"}},
        {"name": "list_notes", "arguments": {}},
    ]);
    let seen = python_client(&calls, &[SERVER]);
    let results: Vec<&Value> = (0..4).map(|i| &seen["calls"][i]["result"]).collect();

    let weather = results[0];
    assert_eq!(weather["isError"], false, "{weather}");
    let expected = json!({
        "city": "Boston", "temperature": 65.3, "unit": "fahrenheit", "sky": "partly cloudy"
    });
    assert_eq!(weather["structuredContent"], expected);
    let as_text: Value = serde_json::from_str(text(weather)).expect("the text is the JSON");
    assert_eq!(as_text, expected);

    // A number is JSON too, wrapped to be an object; the notebook is shared between calls.
    assert_eq!(results[1]["structuredContent"], json!({"result": 1}));
    assert_eq!(results[2]["structuredContent"], json!({"result": 2}));
    assert_eq!(text(results[2]), "2");
    assert_eq!(
        results[3]["structuredContent"],
        json!({"result": ["umbrella", "boots"]})
    );
}

#[test]
fn errors_are_is_error_results_with_the_classified_message() {
    let calls = json!([
        {"name": "get_weather", "arguments": {"city": 7}},
        {"name": "get_weather", "arguments": {"city": "Oslo", "unit": "kelvin"}},
        {"name": "get_weather", "arguments": {}},
        {"name": "save_note", "arguments": {"text": "  "}},
        {"name": "get_wether", "arguments": {"city": "Oslo"}},
    ]);
    let seen = python_client(&calls, &[SERVER]);
    let result = |i: usize| &seen["calls"][i]["result"];

    assert_eq!(result(0)["isError"], true, "{}", result(0));
    assert_eq!(
        text(result(0)),
        "Error: invalid arguments at `/city`: expected a string, found integer `7`. \
         Correct the arguments and call again."
    );
    assert!(result(0).get("structuredContent").is_none());
    assert_eq!(result(1)["isError"], true);
    assert!(
        text(result(1)).starts_with("Error: invalid arguments at `/unit`"),
        "{}",
        result(1)
    );
    assert_eq!(result(2)["isError"], true);
    assert_eq!(
        text(result(2)),
        "Error: invalid arguments at `/city`: expected the required field `city`, found \
         nothing. Correct the arguments and call again."
    );
    // The tool's own `Err`.
    assert_eq!(result(3)["isError"], true);
    assert_eq!(text(result(3)), "Error: a note cannot be empty");
    // An unknown tool is a protocol error, with the closest names.
    let error = &seen["calls"][4]["error"];
    assert_eq!(error["code"], -32602, "{}", seen["calls"][4]);
    assert_eq!(
        error["message"],
        "Error: there is no tool named `get_wether`. Did you mean `get_weather`?"
    );
}

#[test]
fn a_call_that_needs_a_decision_is_refused_when_the_client_cannot_ask_and_not_run() {
    let calls = json!([
        {"name": "save_note", "arguments": {"text": "keep me"}},
        {"name": "clear_notes", "arguments": {}},
        {"name": "list_notes", "arguments": {}},
    ]);
    let seen = python_client(&calls, &[SERVER]);
    let refused = &seen["calls"][1]["result"];
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        text(refused),
        "Error: calling `clear_notes` needs a person's decision, and this MCP client offers no \
         way to ask its user (it declares no form elicitation); the call was not run. Ask the \
         user to run it another way."
    );
    // The notes are still there: the refused call did not run.
    assert_eq!(
        seen["calls"][2]["result"]["structuredContent"],
        json!({"result": ["keep me"]})
    );
}
