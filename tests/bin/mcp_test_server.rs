//! An MCP server for the protocol tests of `tests/tests/mcp/protocol.rs`: a slow tool (for a
//! client that leaves in the middle of a call), a failing one, a panicking one, and one that
//! a confirmation policy gates for large amounts. Serves over stdio.
//!
//! Options: `--state-ttl SECONDS`, how long the request state of an input request stays valid
//! (15 minutes by default); `--refuse`, calls that need a decision are refused instead of
//! asked about.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tool_sdk::gate::{ConfirmationPolicy, Sealer};
use tool_sdk::mcp::{McpDecisions, McpServer};
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

/// How many transfers ran.
static TRANSFERS: AtomicUsize = AtomicUsize::new(0);

/// Sends money.
#[tool]
fn transfer(to: String, amount: u64) -> String {
    TRANSFERS.fetch_add(1, Ordering::SeqCst);
    format!("sent {amount} to {to}")
}

/// Says how many transfers ran in this process.
#[tool(read_only)]
fn transfers_made() -> usize {
    TRANSFERS.load(Ordering::SeqCst)
}

/// The decisions the command line asks for.
fn decisions() -> Result<McpDecisions, Box<dyn std::error::Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match arguments
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => Ok(McpDecisions::ask()),
        ["--refuse"] => Ok(McpDecisions::refuse()),
        ["--state-ttl", seconds] => {
            let ttl = Duration::from_secs(seconds.parse()?);
            let sealer = Sealer::new(b"the test server's request-state key, 32+ bytes")?;
            Ok(McpDecisions::ask().with_sealer(sealer.with_ttl(ttl)))
        }
        other => Err(format!("unknown arguments {other:?}").into()),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry
        .register(SlowTool)?
        .register(DivideTool)?
        .register(BoomTool)?
        .register(TransferTool)?
        .register(TransfersMadeTool)?;
    let policy = ConfirmationPolicy::new().with_confirm_when(|call| {
        serde_json::from_str::<serde_json::Value>(&call.arguments)
            .ok()
            .and_then(|arguments| arguments["amount"].as_u64())
            .is_some_and(|amount| amount > 1_000)
    });
    McpServer::builder("mcp-test-server", "9.9.9")
        .with_confirmation_policy(policy)
        .with_decisions(decisions()?)
        .build(registry)?
        .serve_stdio()
        .await?;
    eprintln!("mcp-test-server: the client closed the session");
    Ok(())
}
