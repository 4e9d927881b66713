//! A long-running tool served as a task to rmcp's own client, which declares the Tasks
//! extension: the call answers with a task, `tasks/get` polls it to its result, and
//! `tasks/cancel` ends another cancelled, its tool's token cancelled.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, TaskPayload, TaskStatus,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::json;
use tokio::process::Command;

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

async fn client_taking_tasks() -> RunningService<RoleClient, ClientConfig> {
    let capabilities = ClientCapabilities::builder().enable_tasks().build();
    let info = ClientConfig::new(
        capabilities,
        Implementation::new("rmcp-tasks-test", "1.0.0"),
    );
    let transport = TokioChildProcess::new(Command::new(SERVER)).expect("the server starts");
    info.serve(transport).await.expect("the session starts")
}

/// Polls until the task is no longer working.
async fn settled(client: &RunningService<RoleClient, ClientConfig>, task_id: &str) -> TaskPayload {
    for _ in 0..200 {
        let got = client
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get answers");
        if got.task.task.status != TaskStatus::Working {
            return got.task.payload;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("task {task_id} still works")
}

fn arguments(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[tokio::test]
async fn rmcps_client_polls_a_task_to_its_result() {
    let client = client_taking_tasks().await;
    let request =
        CallToolRequestParams::new("write_report").with_arguments(arguments(json!({"pages": 2})));
    let response = client
        .call_tool_once(request)
        .await
        .expect("the call answers");
    let CallToolResponse::Task(created) = response else {
        panic!("not a task: {response:?}");
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    let TaskPayload::Completed { result } = settled(&client, &created.task.task_id).await else {
        panic!("the task did not complete");
    };
    assert_eq!(
        result["content"][0]["text"], "a report of 2 pages",
        "{result:?}"
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn rmcps_client_cancels_a_task() {
    let client = client_taking_tasks().await;
    let response = client
        .call_tool_once(CallToolRequestParams::new("long_wait"))
        .await
        .expect("the call answers");
    let CallToolResponse::Task(created) = response else {
        panic!("not a task: {response:?}");
    };
    let task_id = created.task.task_id;
    client
        .cancel_task(CancelTaskParams::new(task_id.as_str()))
        .await
        .expect("tasks/cancel answers");
    assert!(matches!(
        settled(&client, &task_id).await,
        TaskPayload::Cancelled
    ));
    client.cancel().await.ok();
}
