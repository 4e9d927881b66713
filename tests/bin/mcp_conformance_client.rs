//! The client the MCP conformance suite (`@modelcontextprotocol/conformance`) drives in its
//! client scenarios, written with tool-sdk's `McpClient`: the suite starts a server of its own
//! and runs this program with the server's URL as last argument and the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`; the program does what the scenario expects of a client.
//!
//! - `initialize`: connect (initialize, list the tools) and leave.
//! - `tools_call`: call `add_numbers` with 5 and 3.
//! - `elicitation-sep1034-client-defaults`: call `test_client_elicitation_defaults`, accepting
//!   the server's question with an empty form, so that every field is the schema's default.
//! - `sse-retry`: call `test_reconnection`, whose answer comes after the server closes the
//!   call's stream.

use serde_json::json;
use tool_sdk::mcp::{McpClient, McpElicitationAnswer};
use tool_sdk::ToolRegistry;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .next_back()
        .ok_or("the server's URL is missing")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO")?;
    let client = McpClient::builder()
        .with_client_info("tool-sdk-conformance-client", env!("CARGO_PKG_VERSION"))
        .with_elicitation(|_asked| async { McpElicitationAnswer::Accept(json!({})) })
        .connect_http(&url)
        .await?;
    let mut registry = ToolRegistry::new();
    client.register_into(&mut registry).await?;
    let call = match scenario.as_str() {
        "initialize" => None,
        "tools_call" => Some(("add_numbers", json!({"a": 5, "b": 3}))),
        "elicitation-sep1034-client-defaults" => {
            Some(("test_client_elicitation_defaults", json!({})))
        }
        "sse-retry" => Some(("test_reconnection", json!({}))),
        other => return Err(format!("unknown scenario `{other}`").into()),
    };
    if let Some((tool, arguments)) = call {
        let arguments = arguments.to_string();
        let output = registry.call(tool, &arguments).await?;
        println!("{tool}: {}", output.content());
    }
    client.close().await?;
    Ok(())
}
