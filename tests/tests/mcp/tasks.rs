//! A long-running tool served as a task to rmcp's own client, which declares the Tasks
//! extension: the call answers with a task, `tasks/get` polls it to its result, and
//! `tasks/cancel` ends another cancelled, its tool's token cancelled (or completed, when its
//! tool finished anyway). With tasks kept in a
//! durable store, a task's result outlives its server, a task whose server stopped is reported
//! failed, and a replica sharing the store answers for, and cancels, another's task.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, Task, TaskPayload, TaskStatus,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::json;
use tokio::process::Command;
use tool_sdk_tests::durable::{place, Backend, Place};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

async fn client_taking_tasks() -> RunningService<RoleClient, ClientConfig> {
    client_of_server_with(&[]).await
}

/// A client that takes tasks, of a test server started with `options`.
async fn client_of_server_with(options: &[&str]) -> RunningService<RoleClient, ClientConfig> {
    let capabilities = ClientCapabilities::builder().enable_tasks().build();
    let info = ClientConfig::new(
        capabilities,
        Implementation::new("rmcp-tasks-test", "1.0.0"),
    );
    let mut server = Command::new(SERVER);
    server.args(options);
    let transport = TokioChildProcess::new(server).expect("the server starts");
    info.serve(transport).await.expect("the session starts")
}

/// Polls until the task is no longer working.
async fn settled(client: &RunningService<RoleClient, ClientConfig>, task_id: &str) -> TaskPayload {
    for _ in 0..400 {
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
    let created = start_task(&client, "write_report", json!({"pages": 2})).await;
    assert_eq!(created.status, TaskStatus::Working);
    let TaskPayload::Completed { result } = settled(&client, &created.task_id).await else {
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
    let task_id = start_task(&client, "long_wait", json!({})).await.task_id;
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

#[tokio::test]
async fn a_task_whose_tool_finished_anyway_is_reported_completed_with_its_result() {
    let client = client_taking_tasks().await;
    let task_id = start_task(&client, "finish_anyway", json!({}))
        .await
        .task_id;
    client
        .cancel_task(CancelTaskParams::new(task_id.as_str()))
        .await
        .expect("tasks/cancel answers");
    let payload = settled(&client, &task_id).await;
    let TaskPayload::Completed { result } = payload else {
        panic!("the tool finished, but the task reads {payload:?}");
    };
    assert_eq!(
        result["content"][0]["text"], "finished anyway",
        "{result:?}"
    );
    assert_eq!(result["isError"], false, "{result:?}");
    client.cancel().await.ok();
}

/// Starts `tool` as a task; the task as created.
async fn start_task(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &str,
    arguments: serde_json::Value,
) -> Task {
    let request =
        CallToolRequestParams::new(tool.to_owned()).with_arguments(self::arguments(arguments));
    let response = client
        .call_tool_once(request)
        .await
        .expect("the call answers");
    let CallToolResponse::Task(created) = response else {
        panic!("not a task: {response:?}");
    };
    created.task
}

/// The options of a test server keeping its tasks at `place`, under a short lease.
fn stored_at(place: &Place) -> Vec<&str> {
    vec![
        "--task-store",
        place.spec.as_str(),
        "--task-lease-ms",
        "300",
    ]
}

async fn a_tasks_result_outlives_its_server_and_a_stopped_task_fails(backend: Backend) {
    let place = place(backend, "mcp_task_restart").await;
    let options = stored_at(&place);
    let before = client_of_server_with(&options).await;
    let finished = start_task(&before, "write_report", json!({"pages": 2}))
        .await
        .task_id;
    assert!(matches!(
        settled(&before, &finished).await,
        TaskPayload::Completed { .. }
    ));
    let cut_short = start_task(&before, "long_wait", json!({})).await.task_id;
    // The server stops (its client leaves) with the second task still working.
    before.cancel().await.ok();

    let after = client_of_server_with(&options).await;
    let TaskPayload::Completed { result } = settled(&after, &finished).await else {
        panic!("the finished task's result was lost");
    };
    assert_eq!(
        result["content"][0]["text"], "a report of 2 pages",
        "{result:?}"
    );
    let got = after
        .get_task(GetTaskParams::new(&finished))
        .await
        .expect("tasks/get answers");
    assert_eq!(
        got.task.task.status_message.as_deref(),
        Some("2 of 2: writing")
    );
    // Once its lease has run out, the task cut short is reported failed, saying why.
    let TaskPayload::Failed { error } = settled(&after, &cut_short).await else {
        panic!("the task cut short is not failed");
    };
    assert_eq!(
        error["message"], "the server stopped before the task finished",
        "{error:?}"
    );
    after.cancel().await.ok();
}

async fn a_replica_answers_for_and_cancels_another_replicas_task(backend: Backend) {
    let place = place(backend, "mcp_task_replicas").await;
    let options = stored_at(&place);
    let (running, other) = (
        client_of_server_with(&options).await,
        client_of_server_with(&options).await,
    );
    let task = start_task(&running, "long_wait", json!({})).await.task_id;
    let seen = other
        .get_task(GetTaskParams::new(&task))
        .await
        .expect("the other replica knows it");
    assert_eq!(seen.task.task.status, TaskStatus::Working);
    other
        .cancel_task(CancelTaskParams::new(task.as_str()))
        .await
        .expect("tasks/cancel answers");
    // The replica running it hears of the cancel at its next renewal and stops the tool.
    assert!(matches!(
        settled(&other, &task).await,
        TaskPayload::Cancelled
    ));
    let count = running
        .call_tool(CallToolRequestParams::new("cancelled_calls"))
        .await
        .expect("the call answers");
    assert_eq!(
        count.content[0].as_text().map(|t| t.text.as_str()),
        Some("1"),
        "{count:?}"
    );
    // A task no replica knows is an error on every one.
    let unknown = other
        .cancel_task(CancelTaskParams::new("no-such-task"))
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
    running.cancel().await.ok();
    other.cancel().await.ok();
}

#[tokio::test]
async fn a_task_out_of_time_is_stopped_and_reported_failed_while_it_can_be_read() {
    // A time to live of 3 s and a lease of 1 s: the task may work 2 s, and reads as failed,
    // saying why, for the last second of its life.
    let client = client_of_server_with(&["--task-ttl-ms", "3000", "--task-lease-ms", "1000"]).await;
    let task = start_task(&client, "long_wait", json!({})).await.task_id;
    let TaskPayload::Failed { error } = settled(&client, &task).await else {
        panic!("the task out of time is not failed");
    };
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains("ran out of time")),
        "{error:?}"
    );
    client.cancel().await.ok();
}

macro_rules! on_durable_stores {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $scenario() {
                    super::$scenario(super::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $scenario() {
                    super::$scenario(super::Backend::Postgres).await;
                }
            )*
        }
    };
}

on_durable_stores!(
    a_tasks_result_outlives_its_server_and_a_stopped_task_fails,
    a_replica_answers_for_and_cancels_another_replicas_task,
);
