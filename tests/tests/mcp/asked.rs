//! A consumed server that asks this application's user (`elicitation/create`) or reports
//! progress: `server-everything`'s elicitation and long-running tools, and a tool-sdk server
//! asking about a call that needs a decision, all through `McpClient`.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::process::Command;
use tool_sdk::mcp::{McpClient, McpElicitation, McpElicitationAnswer};
use tool_sdk::run::{event_fn, LoopEvent, ToolLoop};
use tool_sdk::{Message, ScriptedModel, ToolRegistry};
use tool_sdk_tests::mcp::node_package;
use tool_sdk_tests::replies::{answer, calls};

fn everything_command() -> Command {
    let mut command = Command::new("node");
    command
        .arg(node_package(
            "@modelcontextprotocol/server-everything/dist/index.js",
        ))
        .arg("stdio");
    command
}

/// A client answering every question with `answer`, keeping what it was asked.
async fn answering(
    command: Command,
    answer: McpElicitationAnswer,
) -> (McpClient, ToolRegistry, Arc<Mutex<Vec<McpElicitation>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&asked);
    let client = McpClient::builder()
        .with_elicitation(move |question| {
            kept.lock().unwrap().push(question);
            let answer = answer.clone();
            async move { answer }
        })
        .spawn(command)
        .await
        .expect("the server starts");
    let mut registry = ToolRegistry::new();
    client
        .register_into(&mut registry)
        .await
        .expect("its tools are added");
    (client, registry, asked)
}

#[tokio::test]
async fn everythings_elicitation_is_answered_by_the_application() {
    let filled = McpElicitationAnswer::Accept(json!({"name": "Ada Lovelace", "check": true}));
    let (_client, registry, asked) = answering(everything_command(), filled).await;
    // The tool is only there for a client that declares elicitation.
    let output = registry
        .call("trigger-elicitation-request", "{}")
        .await
        .expect("the tool answers");
    assert!(
        output.content().contains("- Name: Ada Lovelace"),
        "{output}"
    );
    assert!(
        output.content().contains("- Agreed to terms: true"),
        "{output}"
    );
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].message,
        "Please provide inputs for the following fields:"
    );
    assert_eq!(
        asked[0].schema["required"],
        json!(["name"]),
        "{:?}",
        asked[0]
    );
}

#[tokio::test]
async fn a_declined_elicitation_reaches_the_server_as_declined() {
    let (_client, registry, _asked) =
        answering(everything_command(), McpElicitationAnswer::Decline).await;
    let output = registry
        .call("trigger-elicitation-request", "{}")
        .await
        .expect("the tool answers");
    assert!(output.content().contains("User declined"), "{output}");
}

#[tokio::test]
async fn a_client_without_elicitation_is_offered_no_such_tool() {
    let (_client, registry) = tool_sdk_tests::mcp::consumed(everything_command()).await;
    assert!(registry.contains("get-sum"));
    assert!(!registry.contains("trigger-elicitation-request"));
}

#[tokio::test]
async fn everythings_long_operation_reports_progress_as_loop_events() {
    let (_client, registry) = tool_sdk_tests::mcp::consumed(everything_command()).await;
    let model = ScriptedModel::new([
        calls(&[(
            "c1",
            "trigger-long-running-operation",
            r#"{"duration": 0.3, "steps": 3}"#,
        )]),
        answer("done"),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::clone(&seen);
    let agent = ToolLoop::new(model, registry).with_observer(event_fn(move |event| {
        if let LoopEvent::ToolProgress { update, .. } = event {
            events.lock().unwrap().push((update.done, update.total));
        }
    }));
    let _ = agent.run(&mut vec![Message::user("go")]).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );
}

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

/// How many transfers the test server made, as its `transfers_made` tool says.
async fn transfers_made(registry: &ToolRegistry) -> String {
    let made = registry
        .call("transfers_made", "{}")
        .await
        .expect("the server answers");
    made.content().to_owned()
}

#[tokio::test]
async fn a_tool_sdk_server_asks_a_tool_sdk_client_about_a_gated_call() {
    let allow = McpElicitationAnswer::Accept(json!({"decision": "allow"}));
    let (_client, registry, asked) = answering(Command::new(SERVER), allow).await;
    let output = registry
        .call("transfer", r#"{"to": "ana", "amount": 5000}"#)
        .await
        .expect("the allowed transfer runs");
    assert_eq!(output.content(), "sent 5000 to ana");
    assert_eq!(
        asked.lock().unwrap()[0].message,
        r#"The assistant wants to call `transfer` with {"to":"ana","amount":5000}. Allow it?"#
    );

    let deny = McpElicitationAnswer::Accept(json!({"decision": "deny", "reason": "too much"}));
    let (_client, registry, _asked) = answering(Command::new(SERVER), deny).await;
    let error = registry
        .call("transfer", r#"{"to": "ana", "amount": 5000}"#)
        .await
        .expect_err("the denied transfer does not run");
    assert!(
        error
            .to_string()
            .contains("the user denied the call of `transfer`: too much"),
        "{error}"
    );
    assert_eq!(transfers_made(&registry).await, "0");
}

#[tokio::test]
async fn a_question_answered_after_the_servers_deadline_runs_nothing() {
    // The user takes a second to allow; the server's policy gives them 300 ms.
    let client = McpClient::builder()
        .with_elicitation(|_question| async {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            McpElicitationAnswer::Accept(json!({"decision": "allow"}))
        })
        .spawn({
            let mut server = Command::new(SERVER);
            server.args(["--deadline-ms", "300"]);
            server
        })
        .await
        .expect("the server starts");
    let mut registry = ToolRegistry::new();
    client
        .register_into(&mut registry)
        .await
        .expect("its tools are added");
    let error = registry
        .call("transfer", r#"{"to": "ana", "amount": 5000}"#)
        .await
        .expect_err("the late allowance runs nothing");
    let said = error.to_string();
    assert!(
        said.contains("the call of `transfer`") && said.contains("deadline"),
        "{said}"
    );
    assert_eq!(transfers_made(&registry).await, "0");
}

#[tokio::test]
async fn the_host_user_may_correct_the_arguments_before_allowing() {
    let corrected = McpElicitationAnswer::Accept(json!({
        "decision": "allow",
        "arguments": r#"{"to": "ana", "amount": 2000}"#,
    }));
    let (_client, registry, asked) = answering(Command::new(SERVER), corrected).await;
    let output = registry
        .call("transfer", r#"{"to": "ana", "amount": 5000}"#)
        .await
        .expect("the corrected transfer runs");
    assert_eq!(
        output.content(),
        "A person changed this call's arguments before it ran; it ran with \
         {\"to\": \"ana\", \"amount\": 2000}\nsent 2000 to ana"
    );
    let schema = asked.lock().unwrap()[0].schema.clone();
    assert_eq!(
        schema["properties"]["arguments"]["type"], "string",
        "{schema}"
    );
    assert_eq!(transfers_made(&registry).await, "1");

    // Arguments that do not fit the tool run nothing.
    let unfit = McpElicitationAnswer::Accept(json!({
        "decision": "allow",
        "arguments": r#"{"to": "ana", "amount": "lots"}"#,
    }));
    let (_client, registry, _asked) = answering(Command::new(SERVER), unfit).await;
    let error = registry
        .call("transfer", r#"{"to": "ana", "amount": 5000}"#)
        .await
        .expect_err("the unfit arguments run nothing");
    assert!(
        error
            .to_string()
            .contains("the arguments the user gave for `transfer` do not fit"),
        "{error}"
    );
    assert_eq!(transfers_made(&registry).await, "0");
}
