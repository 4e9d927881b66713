//! Tools of MCP servers used here: a server written with the Python SDK's FastMCP
//! (`tests/mcp/fastmcp_server.py`) started as a child process, its tools added to a registry
//! and offered by a tool loop; and a tool-sdk server reached in-process.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::process::Command;
use tool_sdk::mcp::{McpClient, McpServer};
use tool_sdk::run::{Budget, LoopOptions, LoopStatus, OnExhausted, ToolLoop};
use tool_sdk::{
    define::{Confirm, ToolError},
    model::ToolResultStatus,
    tool, AssistantMessage, Message, ScriptedModel, Tool, ToolCall, ToolRegistry,
};
use tool_sdk_tests::mcp::{python, script};

async fn inventory(prefix: &str) -> McpClient {
    let mut command = Command::new(python());
    command.arg(script("fastmcp_server.py"));
    McpClient::builder()
        .with_prefix(prefix)
        .spawn(command)
        .await
        .expect("the FastMCP server starts and initializes")
}

fn calls(calls: &[(&str, &str, &str)]) -> AssistantMessage {
    AssistantMessage::with_tool_calls(
        calls
            .iter()
            .map(|(id, name, args)| ToolCall::new(*id, *name, *args))
            .collect(),
    )
}

fn tool_result(conversation: &[Message], index: usize) -> (&str, ToolResultStatus) {
    match &conversation[index] {
        Message::Tool(result) => (result.content.as_str(), result.status),
        other => panic!("message {index} is not a tool result: {other:?}"),
    }
}

#[tokio::test]
async fn the_servers_tools_become_tools_with_its_schemas_and_hints() {
    let client = inventory("inv_").await;
    let server = client.server_info().expect("the server introduced itself");
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("py-inventory", "0.4.2")
    );

    let tools = client.tools().await.expect("the tools are listed");
    let names: Vec<&str> = tools.iter().map(|t| t.definition().name.as_str()).collect();
    assert_eq!(names, ["inv_stock", "inv_restock", "inv_echo", "inv_chart"]);

    let stock = tools[0].definition();
    assert_eq!(stock.description, "How many of an item are in stock.");
    assert_eq!(stock.parameters["type"], "object");
    assert_eq!(stock.parameters["required"], json!(["item"]));
    assert_eq!(stock.parameters["properties"]["item"]["type"], "string");
    assert!(stock.options.read_only);

    let restock = tools[1].definition();
    assert!(!restock.options.read_only);
    assert_eq!(restock.options.destructive, Some(false));

    let echo = tools[2].definition();
    assert_eq!(echo.parameters["properties"]["times"]["default"], 1);
    assert_eq!(echo.options.destructive, None);
    assert_eq!(echo.options.confirm, Confirm::Never);
}

#[tokio::test]
async fn calls_go_to_the_server_and_its_errors_are_execution_failures() {
    let client = inventory("").await;
    let mut registry = ToolRegistry::new();
    assert_eq!(client.register_into(&mut registry).await.ok(), Some(4));

    let output = registry
        .call("echo", r#"{"text": "hi", "times": 2}"#)
        .await
        .expect("echo answers");
    // FastMCP sends a `dict` as JSON text without structured content: text it stays.
    assert_eq!(
        serde_json::from_str::<Value>(output.content()).ok(),
        Some(json!({"echo": "hi hi"}))
    );

    // The server's `isError`.
    let error = registry
        .call("stock", r#"{"item": "banana"}"#)
        .await
        .expect_err("an unknown item fails");
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert!(
        error.model_message().contains("unknown item 'banana'"),
        "{}",
        error.model_message()
    );

    // Arguments are checked against the server's schema before anything is sent.
    let error = registry
        .call("stock", r#"{"item": 5}"#)
        .await
        .expect_err("a number is not an item");
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
    assert!(error.model_message().contains("/item"), "{error}");

    // A name the registry holds already is refused, nothing added; a prefix avoids it.
    let again = inventory("").await;
    let error = again.register_into(&mut registry).await.unwrap_err();
    assert!(
        matches!(
            &error,
            tool_sdk::mcp::McpError::NameTaken(name) if name == "stock"
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("prefix"), "{error}");
    assert_eq!(registry.len(), 4);
    let prefixed = inventory("second_").await;
    assert_eq!(prefixed.register_into(&mut registry).await.ok(), Some(4));
    let output = registry
        .call("second_restock", r#"{"item": "pear", "count": 4}"#)
        .await
        .expect("restock answers");
    assert_eq!(output.content(), "pear: 4 in stock");
    client.close().await.expect("the session ends");
}

/// How many of an item are in stock.
#[tool(name = "stock")]
fn local_stock(item: String) -> usize {
    item.len()
}

async fn refusal(registry: &ToolRegistry, arguments: &str) -> String {
    registry
        .call("stock", arguments)
        .await
        .expect_err("the arguments are wrong")
        .model_message()
}

#[tokio::test]
async fn a_remote_tools_bad_arguments_read_like_a_local_tools() {
    let client = inventory("").await;
    let mut remote = ToolRegistry::new();
    client
        .register_into(&mut remote)
        .await
        .expect("the tools are added");
    let mut local = ToolRegistry::new();
    local.register(LocalStockTool).expect("stock registers");
    // Where and what was expected read the same; a value found is said in the validator's
    // terms for one (`a number 5`) and serde's for the other (`integer `5``).
    let expected = |message: &str| {
        message
            .split(", found")
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    // A missing field: the same words; the pointer is the object's for a schema's tool.
    let missing = |message: String| {
        message
            .split_once("expected")
            .map(|(_, rest)| rest.to_owned())
    };
    assert_eq!(
        missing(refusal(&remote, "{}").await),
        missing(refusal(&local, "{}").await)
    );
    for arguments in [r#"{"item": 5}"#, r#"{"item": [1]}"#] {
        let (remote, local) = (
            refusal(&remote, arguments).await,
            refusal(&local, arguments).await,
        );
        assert_eq!(expected(&remote), expected(&local), "arguments {arguments}");
        assert!(!remote.contains("is not of type"), "{remote}");
    }
}

/// A budget that asks holds a reply of the server's tools like a local reply: none runs before
/// the decision, the allowed ones run on the server once, and the run goes on.
#[tokio::test]
async fn a_spent_budget_holds_the_servers_calls_until_a_person_allows_them() {
    let model = Arc::new(ScriptedModel::new([
        calls(&[
            ("c1", "inv_restock", r#"{"item": "plum", "count": 4}"#),
            ("c2", "inv_stock", r#"{"item": "plum"}"#),
        ]),
        AssistantMessage::text("4 plums."),
    ]));
    let budget = Budget::new()
        .with_tool_calls(1)
        .with_on_exhausted(OnExhausted::Ask);
    let agent = ToolLoop::new(SharedModel(Arc::clone(&model)), ToolRegistry::new())
        .with_provider(Arc::new(inventory("inv_").await))
        .with_options(LoopOptions::new().with_budget(budget));
    let mut conversation = vec![Message::user("Restock plums")];
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Paused(turn) = outcome.status else {
        panic!("the reply waits: {:?}", outcome.status);
    };
    assert_eq!(
        turn.budget_reached(),
        Some("2 tool calls asked for, 1 allowed")
    );
    assert_eq!(turn.awaiting(), ["c1", "c2"]);
    let decisions = turn.decide().allow_rest().build();
    let outcome = agent
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    // Restocked once, after the decision: the stock read in the same reply is 4.
    assert_eq!(
        tool_result(&conversation, 2),
        ("plum: 4 in stock", ToolResultStatus::Success)
    );
    assert_eq!(
        tool_result(&conversation, 3),
        ("4", ToolResultStatus::Success)
    );
    tool_sdk::model::check_conversation(&conversation).expect("the conversation stays valid");
}

#[tokio::test]
async fn a_tool_loop_uses_the_server_as_a_provider() {
    let model = Arc::new(ScriptedModel::new([
        calls(&[
            ("c1", "inv_stock", r#"{"item": "apple"}"#),
            ("c2", "inv_restock", r#"{"item": "pear", "count": 3}"#),
        ]),
        calls(&[("c3", "inv_stock", r#"{"item": "pear"}"#)]),
        calls(&[("c4", "inv_stock", r#"{"item": "banana"}"#)]),
    ]));
    let agent = ToolLoop::new(SharedModel(Arc::clone(&model)), ToolRegistry::new())
        .with_provider(Arc::new(inventory("inv_").await));
    let mut conversation = vec![Message::user("How many apples and pears?")];
    let outcome = agent.run(&mut conversation).await;

    // The provider's tools were offered from the first request on.
    let offered = &model.requests()[0].tools;
    assert_eq!(
        offered,
        &["inv_stock", "inv_restock", "inv_echo", "inv_chart"]
    );

    assert_eq!(
        tool_result(&conversation, 2),
        ("12", ToolResultStatus::Success)
    );
    assert_eq!(
        tool_result(&conversation, 3),
        ("pear: 3 in stock", ToolResultStatus::Success)
    );
    assert_eq!(
        tool_result(&conversation, 5),
        ("3", ToolResultStatus::Success)
    );
    // The server's error is the tool's failure, which rolls the run back by default.
    let LoopStatus::RolledBack { name, error, .. } = &outcome.status else {
        panic!("expected a rollback, got {:?}", outcome.status);
    };
    assert_eq!(name, "inv_stock");
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("unknown item 'banana'"),
        "{error}"
    );
    tool_sdk::model::check_conversation(&conversation).expect("the conversation stays valid");
}

#[tokio::test]
async fn possibly_destructive_tools_can_wait_for_a_decision() {
    let mut command = Command::new(python());
    command.arg(script("fastmcp_server.py"));
    let client = McpClient::builder()
        .with_confirm_destructive(true)
        .spawn(command)
        .await
        .expect("the FastMCP server starts");
    let tools = client.tools().await.expect("the tools are listed");
    let confirm: Vec<(&str, Confirm)> = tools
        .iter()
        .map(|t| (t.definition().name.as_str(), t.definition().options.confirm))
        .collect();
    // Read-only, explicitly not destructive, unannotated (MCP: may destroy).
    assert_eq!(
        confirm,
        [
            ("stock", Confirm::Never),
            ("restock", Confirm::Never),
            ("echo", Confirm::Always),
            ("chart", Confirm::Never)
        ]
    );
    assert!(tools[2].needs_confirmation(r#"{"text": "x"}"#));
}

/// Divides a by b.
#[tool(read_only)]
fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(a / b)
}

#[tokio::test]
async fn a_tool_sdk_server_and_client_round_trip_in_process() {
    let mut registry = ToolRegistry::new();
    registry.register(DivideTool).expect("divide registers");
    let server = McpServer::builder("calculator", "2.0.0")
        .build(registry)
        .expect("the schemas have an MCP form");
    assert_eq!(server.listed_tools().len(), 1);

    let (client_side, server_side) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_side);
    let client = McpClient::builder()
        .with_prefix("calc_")
        .connect_io(client_read, client_write)
        .await
        .expect("the session is set up");
    assert_eq!(
        client.server_info().map(|info| (info.name, info.version)),
        Some(("calculator".to_owned(), "2.0.0".to_owned()))
    );

    let mut registry = ToolRegistry::new();
    client
        .register_into(&mut registry)
        .await
        .expect("the tools are added");
    let definition = registry
        .get("calc_divide")
        .expect("prefixed name")
        .definition();
    assert!(definition.options.read_only);
    assert_eq!(definition.parameters["required"], json!(["a", "b"]));

    let output = registry.call("calc_divide", r#"{"a": 1, "b": 8}"#).await;
    assert_eq!(
        output.map(|o| o.into_content()).ok().as_deref(),
        Some("0.125")
    );
    let error = registry
        .call("calc_divide", r#"{"a": 1, "b": 0}"#)
        .await
        .expect_err("division by zero fails");
    assert_eq!(error.model_message(), "Error: cannot divide by zero");

    client.close().await.expect("the session ends");
    let served = tokio::time::timeout(std::time::Duration::from_secs(10), serving)
        .await
        .expect("the server stops when the client leaves");
    assert!(matches!(served, Ok(Ok(()))), "{served:?}");
}

struct SharedModel(Arc<ScriptedModel>);

impl tool_sdk::ChatModel for SharedModel {
    fn chat<'a>(
        &'a self,
        request: tool_sdk::model::ChatRequest<'a>,
    ) -> tool_sdk::model::ModelFuture<'a> {
        self.0.chat(request)
    }
}

#[tokio::test]
async fn deferred_server_tools_are_found_by_search_and_called() {
    use tool_sdk::describe::search::SEARCH_TOOL_NAME;

    let mut command = Command::new(python());
    command.arg(script("fastmcp_server.py"));
    let client = McpClient::builder()
        .with_prefix("inv_")
        .with_defer(tool_sdk::define::Defer::Always)
        .spawn(command)
        .await
        .expect("the FastMCP server starts and initializes");
    let model = Arc::new(ScriptedModel::new([
        calls(&[(
            "s1",
            SEARCH_TOOL_NAME,
            r#"{"query": "how many of an item are in stock"}"#,
        )]),
        calls(&[("c1", "inv_stock", r#"{"item": "apple"}"#)]),
        AssistantMessage {
            text: Some("12 apples".into()),
            tool_calls: vec![],
        },
    ]));
    let agent = ToolLoop::new(SharedModel(Arc::clone(&model)), ToolRegistry::new())
        .with_provider(Arc::new(client));
    let mut conversation = vec![Message::user("How many apples are there?")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );

    let requests = model.requests();
    // Up front, only the search tool: the server's tools wait to be found.
    assert_eq!(requests[0].tools, [SEARCH_TOOL_NAME]);
    // Found, then offered and called through the server.
    assert!(
        requests[1].tools.contains(&"inv_stock".to_owned()),
        "{:?}",
        requests[1].tools
    );
    assert!(requests[1].tools.len() <= 4, "{:?}", requests[1].tools);
    assert_eq!(
        tool_result(&conversation, 4),
        ("12", ToolResultStatus::Success)
    );
}
