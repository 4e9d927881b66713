//! The `mcp_server` example as the clients users have see it, each over stdio and over
//! streamable HTTP: the Python `mcp` package 1.x (`ClientSession`) and 2.x (`ClientSession`,
//! and its high-level `Client` in its default mode and in its `legacy` compatibility mode),
//! and the TypeScript SDK's client. Each initializes, lists, calls, sends bad arguments and
//! calls a tool that does not exist.

use std::process::Command;

use serde_json::{json, Value};
use tool_sdk_tests::mcp::{python, python_mcp1, HttpServer, OtherClient};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_quickstart_server");

/// What every client must see, over both transports.
fn check(client: &OtherClient) {
    let calls = json!([
        {"name": "get_weather", "arguments": {"city": "Lisbon"}},
        {"name": "get_weather", "arguments": {"city": 5}},
        {"name": "get_wether", "arguments": {"city": "Lisbon"}},
    ]);
    let http = HttpServer::start(Command::new(SERVER));
    for (transport, seen) in [
        ("stdio", client.run(&calls, &[SERVER])),
        ("http", client.run(&calls, &[http.url.as_str()])),
    ] {
        let context = format!("{client:?} over {transport}");
        assert_eq!(
            seen["serverInfo"]["name"], "tool-sdk-quickstart",
            "{context}: {seen}"
        );
        let names: Vec<&str> = seen["tools"]
            .as_array()
            .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            names,
            ["get_weather", "save_note", "list_notes", "clear_notes"],
            "{context}"
        );
        let outcomes = &seen["calls"];
        let weather = &outcomes[0]["result"];
        assert_eq!(weather["isError"], false, "{context}: {weather}");
        assert!(text(weather).contains("Lisbon"), "{context}: {weather}");
        let bad = &outcomes[1]["result"];
        assert_eq!(bad["isError"], true, "{context}: {bad}");
        assert!(
            text(bad).starts_with("Error: invalid arguments at `/city`"),
            "{context}: {bad}"
        );
        let unknown = &outcomes[2]["error"];
        assert_eq!(unknown["code"], -32602, "{context}: {outcomes}");
        assert!(
            unknown["message"]
                .as_str()
                .is_some_and(|message| message.contains("get_weather")),
            "the closest name is suggested; {context}: {unknown}"
        );
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn python_mcp_1() {
    check(&OtherClient::Python {
        python: python_mcp1(),
        mode: "session",
    });
}

#[test]
fn python_mcp_2_session() {
    check(&OtherClient::Python {
        python: python(),
        mode: "session",
    });
}

#[test]
fn python_mcp_2_client_default_mode() {
    check(&OtherClient::Python {
        python: python(),
        mode: "auto",
    });
}

#[test]
fn python_mcp_2_client_legacy_mode() {
    check(&OtherClient::Python {
        python: python(),
        mode: "legacy",
    });
}

#[test]
fn typescript_sdk() {
    check(&OtherClient::TypeScript);
}
