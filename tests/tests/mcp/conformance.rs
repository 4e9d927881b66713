//! The MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.13, the last that runs
//! on Node.js 20, from tests/node_modules) against a tool-sdk server over streamable HTTP
//! (`tests/bin/mcp_conformance_server.rs`, the tools its scenarios call), every scenario of
//! the suite: those about tools, progress, JSON Schema 2020-12, the HTTP transport and DNS
//! rebinding pass; the failures must be exactly the baseline's, features this crate does not
//! serve (`tests/mcp/conformance-baseline.yml`).

use std::process::Command;

use tool_sdk_tests::mcp::{node_package, script, HttpServer};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_conformance_server");

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
