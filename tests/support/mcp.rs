//! Helpers of the MCP tests: the Python of `.venv` (with the `mcp` package) and the scripts of
//! `tests/mcp/`.

use std::process::Command;

use serde_json::Value;

/// The Python of the virtual environment `./scripts/test.sh` sets up.
pub fn python() -> String {
    std::env::var("TOOL_SDK_PYTHON").unwrap_or_else(|_| {
        panic!(
            "TOOL_SDK_PYTHON is not set: run ./scripts/test.sh, which installs the `mcp` \
             package in .venv"
        )
    })
}

/// A script of `tests/mcp/`.
pub fn script(name: &str) -> String {
    format!("{}/mcp/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the reference Python client (`tests/mcp/client.py`) against `server` (a command line):
/// it lists the tools and makes `calls`; returns what it printed.
pub fn python_client(calls: &Value, server: &[&str]) -> Value {
    let output = Command::new(python())
        .arg(script("client.py"))
        .arg(calls.to_string())
        .args(server)
        .output()
        .expect("the python of the virtual environment runs");
    assert!(
        output.status.success(),
        "the Python MCP client failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the Python MCP client printed no JSON ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}
