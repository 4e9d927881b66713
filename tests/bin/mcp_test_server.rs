//! An MCP server for the protocol tests of `tests/tests/mcp/protocol.rs`: a slow tool (for a
//! client that leaves in the middle of a call), a failing one, a panicking one, and one that
//! a confirmation policy gates for large amounts. Serves over stdio.

use std::time::Duration;

use tool_sdk::gate::ConfirmationPolicy;
use tool_sdk::mcp::McpServer;
use tool_sdk::{tool, ToolRegistry};

/// Waits, then says how long it waited.
#[tool(read_only)]
async fn slow(
    /// How long to wait, in milliseconds.
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("waited {millis} ms")
}

/// Divides a by b.
#[tool(read_only)]
fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(a / b)
}

/// Always panics.
#[tool]
fn boom() -> String {
    panic!("boom")
}

/// Sends money.
#[tool]
fn transfer(to: String, amount: u64) -> String {
    format!("sent {amount} to {to}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry
        .register(SlowTool)?
        .register(DivideTool)?
        .register(BoomTool)?
        .register(TransferTool)?;
    let policy = ConfirmationPolicy::new().with_confirm_when(|call| {
        serde_json::from_str::<serde_json::Value>(&call.arguments)
            .ok()
            .and_then(|arguments| arguments["amount"].as_u64())
            .is_some_and(|amount| amount > 1_000)
    });
    McpServer::builder("mcp-test-server", "9.9.9")
        .with_confirmation_policy(policy)
        .build(registry)?
        .serve_stdio()
        .await?;
    eprintln!("mcp-test-server: the client closed the session");
    Ok(())
}
