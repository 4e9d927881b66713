//! A server's tools whose names MCP allows and the providers do not (`math.multiply`, a
//! space, 70 characters) are renamed, not dropped, and their calls go to the server under the
//! server's names; only a collision after renaming leaves a tool out, and the listing says so.

use std::sync::Arc;

use tokio::process::Command;
use tool_sdk::mcp::{McpClient, McpError};
use tool_sdk::register::ToolProvider;
use tool_sdk::{tool, ToolRegistry};
use tool_sdk_tests::mcp::{python, script};

async fn odd_names(prefix: &str) -> McpClient {
    let mut command = Command::new(python());
    command.arg(script("odd_names_server.py"));
    McpClient::builder()
        .with_prefix(prefix)
        .spawn(command)
        .await
        .expect("the FastMCP server starts and initializes")
}

fn names(tools: &[Arc<dyn tool_sdk::Tool>]) -> Vec<String> {
    tools
        .iter()
        .map(|tool| tool.definition().name.clone())
        .collect()
}

#[tokio::test]
async fn names_outside_the_rule_are_renamed_and_called_by_the_servers_name() {
    let client = odd_names("").await;
    let tools = client.tools().await.expect("the tools are listed");
    assert_eq!(
        names(&tools),
        ["math_multiply", "has_space", &"l".repeat(64), "math_add"]
    );

    let mut registry = ToolRegistry::new();
    assert_eq!(client.register_into(&mut registry).await.ok(), Some(4));
    let output = registry
        .call("math_multiply", r#"{"a": 6, "b": 7}"#)
        .await
        .expect("the call reaches `math.multiply`");
    assert_eq!(output.content(), "42");
    let output = registry
        .call("has_space", r#"{"text": "hi"}"#)
        .await
        .expect("the call reaches `has space`");
    assert_eq!(output.content(), "hi");
}

#[tokio::test]
async fn the_listing_says_what_was_renamed_and_what_was_left_out() {
    let client = odd_names("odd_").await;
    let listing = client.listing().await.expect("the tools are listed");
    let renamed: Vec<(&str, &str)> = listing
        .renamed
        .iter()
        .map(|tool| (tool.server_name.as_str(), tool.name.as_str()))
        .collect();
    let long = "l".repeat(70);
    let long_renamed = format!("odd_{}", "l".repeat(60));
    assert_eq!(
        renamed,
        [
            ("math.multiply", "odd_math_multiply"),
            ("has space", "odd_has_space"),
            (long.as_str(), long_renamed.as_str()),
        ]
    );
    // `math.add` and `math_add` are one name after renaming: the one that needs no renaming
    // keeps it, though listed after the other.
    assert_eq!(listing.left_out.len(), 1, "{listing:?}");
    assert_eq!(listing.left_out[0].server_name, "math.add");
    assert!(
        listing.left_out[0].reason.contains("`odd_math_add`"),
        "{listing:?}"
    );
    assert_eq!(listing.tools.len(), 4);
}

#[tokio::test]
async fn a_provider_lists_the_renamed_tools_every_round() {
    let client = odd_names("").await;
    for _ in 0..2 {
        let tools = ToolProvider::tools(&client).await;
        assert!(names(&tools).contains(&"math_multiply".to_owned()));
    }
    let listing = client.listing().await.expect("the tools are listed");
    assert_eq!(listing.left_out.len(), 1, "{listing:?}");
    assert_eq!(listing.left_out[0].server_name, "math.add");
}

/// Multiplies locally.
#[tool(name = "math_multiply")]
fn local_multiply(a: i64, b: i64) -> i64 {
    a * b
}

#[tokio::test]
async fn a_name_the_registry_holds_says_to_use_a_prefix() {
    let client = odd_names("").await;
    let mut registry = ToolRegistry::new();
    registry
        .register(LocalMultiplyTool)
        .expect("the local tool registers");
    let error = client
        .register_into(&mut registry)
        .await
        .expect_err("the names collide");
    assert!(matches!(error, McpError::NameTaken(ref name) if name == "math_multiply"));
    assert!(error.to_string().contains("prefix"), "{error}");
    assert_eq!(registry.len(), 1, "nothing was added");
}
