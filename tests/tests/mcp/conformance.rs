//! The MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.13, the last that runs
//! on Node.js 20, from tests/node_modules) against a tool-sdk server over streamable HTTP
//! (`tests/bin/mcp_conformance_server.rs`, the tools its scenarios call), every scenario of
//! the suite: those about tools, progress, JSON Schema 2020-12, the HTTP transport and DNS
//! rebinding pass; the failures must be exactly the baseline's, features this crate does not
//! serve (`tests/mcp/conformance-baseline.yml`). Then its client scenarios against a
//! tool-sdk `McpClient` (`tests/bin/mcp_conformance_client.rs`): those without OAuth.

use std::process::Command;

use tool_sdk_tests::mcp::{node_package, script, HttpServer};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_conformance_server");
const CLIENT: &str = env!("CARGO_BIN_EXE_mcp_conformance_client");

/// The scenarios a tool-sdk server passes.
const PASSING: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

#[test]
fn the_conformance_suite_passes_but_for_what_is_not_served() {
    let suite = node_package("@modelcontextprotocol/conformance/dist/index.js");
    let server = HttpServer::start(Command::new(SERVER));
    let output = Command::new("node")
        .arg(suite)
        .args(["server", "--url", &server.url, "--suite", "all"])
        .arg("--expected-failures")
        .arg(script("conformance-baseline.yml"))
        .output()
        .expect("node runs the suite");
    let printed = String::from_utf8_lossy(&output.stdout);
    let summary = printed
        .split("=== SUMMARY ===")
        .nth(1)
        .unwrap_or_else(|| panic!("the suite printed no summary:\n{printed}"));
    assert!(
        output.status.success(),
        "the failures are not the baseline's:\n{summary}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for scenario in PASSING {
        let passed = summary
            .lines()
            .any(|line| line.starts_with(&format!("✓ {scenario}:")));
        assert!(passed, "`{scenario}` did not pass:\n{summary}");
    }
}

/// Runs the suite's client `scenario` against the tool-sdk client: whether it passed, and what
/// the suite printed.
fn client_scenario(scenario: &str) -> (bool, String) {
    let suite = node_package("@modelcontextprotocol/conformance/dist/index.js");
    let output = Command::new("node")
        .arg(suite)
        .args(["client", "--command", CLIENT, "--scenario", scenario])
        .output()
        .expect("node runs the suite");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let passed = output.status.success() && printed.contains("OVERALL: PASSED");
    (passed, printed)
}

#[test]
fn the_client_scenarios_pass_calls_elicitation_defaults_and_stream_resumption() {
    for scenario in [
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
    ] {
        let (passed, printed) = client_scenario(scenario);
        assert!(passed, "`{scenario}` did not pass:\n{printed}");
    }
}

/// The suite's `initialize` scenario knows protocol revisions up to 2025-11-25; the client
/// speaks 2026-07-28, which the suite's own check calls a mismatch. When a version of the
/// suite that knows 2026-07-28 is pinned, this fails, and `initialize` joins the passing ones.
#[test]
fn the_client_initialize_scenario_fails_only_on_the_suites_older_revision() {
    let (passed, printed) = client_scenario("initialize");
    assert!(
        !passed,
        "`initialize` passes now: move it to the passing scenarios"
    );
    assert!(
        printed.contains("Version mismatch: expected 2025-11-25, got 2026-07-28"),
        "`initialize` failed for another reason:\n{printed}"
    );
}
