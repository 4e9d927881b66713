//! Progress and cancellation across MCP. Served: a tool's reports through its context reach
//! clients of other SDKs as `notifications/progress` (the Python `mcp` 2.x client on
//! 2026-07-28 and legacy sessions, `mcp` 1.x, the TypeScript SDK's client), all before the
//! result. Consumed: a server's progress becomes the loop's `ToolProgress` events, and
//! cancelling the run tells the server, whose tool sees its token cancelled.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tool_sdk::run::{event_fn, CancellationToken, LoopEvent, ToolLoop};
use tool_sdk::{Message, ScriptedModel, ToolContext};
use tool_sdk_tests::mcp::{consumed, every_client};
use tool_sdk_tests::replies::{answer, calls};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

#[test]
fn a_tools_reports_reach_every_client_before_its_result() {
    let countdown = json!([{"name": "countdown", "arguments": {"from": 3}}]);
    for client in every_client() {
        let seen = client.run(&countdown, &[SERVER]);
        let call = &seen["calls"][0];
        assert_eq!(
            call["result"]["content"][0]["text"], "liftoff",
            "{client:?}"
        );
        // As numbers: JavaScript writes `1` where Python writes `1.0`.
        let progress: Vec<(f64, f64, String)> = serde_json::from_value(call["progress"].clone())
            .unwrap_or_else(|error| panic!("{client:?}: {error}: {seen}"));
        let expected = [
            (1.0, 3.0, "2 left"),
            (2.0, 3.0, "1 left"),
            (3.0, 3.0, "0 left"),
        ];
        assert_eq!(
            progress,
            expected.map(|(done, total, left)| (done, total, left.to_owned())),
            "{client:?}"
        );
    }
}

#[tokio::test]
async fn a_consumed_servers_progress_is_the_loops_progress_events() {
    let (_client, registry) = consumed(tokio::process::Command::new(SERVER)).await;
    let model = ScriptedModel::new([
        calls(&[("c1", "countdown", r#"{"from": 3}"#)]),
        answer("done"),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::clone(&seen);
    let agent = ToolLoop::new(model, registry).with_observer(event_fn(move |event| {
        if let LoopEvent::ToolProgress { key, name, update } = event {
            let message = update.message.clone().unwrap_or_default();
            let progress = (
                key.clone(),
                name.clone(),
                update.done,
                update.total,
                message,
            );
            events.lock().unwrap().push(progress);
        }
    }));
    let _ = agent.run(&mut vec![Message::user("count down")]).await;
    let seen = seen.lock().unwrap();
    let expected: Vec<(String, String, f64, Option<f64>, String)> = (1..=3)
        .map(|done| {
            let left = format!("{} left", 3 - done);
            (
                "c1".into(),
                "countdown".into(),
                f64::from(done),
                Some(3.0),
                left,
            )
        })
        .collect();
    assert_eq!(*seen, expected);
}

#[tokio::test]
async fn cancelling_a_consumed_call_tells_the_server() {
    let (_client, registry) = consumed(tokio::process::Command::new(SERVER)).await;
    let cancel = CancellationToken::new();
    let later = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        later.cancel();
    });
    let context = ToolContext::new().with_cancellation(&cancel);
    let started = std::time::Instant::now();
    let error = registry
        .call_with("wait_for_cancel", "{}", context)
        .await
        .expect_err("the call is given up");
    assert!(started.elapsed() < Duration::from_secs(30), "{error}");
    assert!(error.to_string().contains("cancelled"), "{error}");
    // The server's tool saw its token cancelled: `notifications/cancelled` reached it.
    assert_eq!(calls_cancelled_on_the_server(&registry).await, json!(1));
}

#[tokio::test]
async fn a_consumed_call_dropped_before_its_answer_tells_the_server() {
    let (_client, registry) = consumed(tokio::process::Command::new(SERVER)).await;
    // A caller that stops waiting (a timeout of its own) drops the call's future.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(300),
        registry.call("wait_for_cancel", "{}"),
    )
    .await;
    assert!(gave_up.is_err(), "the call should still be waiting");
    assert_eq!(
        calls_cancelled_on_the_server(&registry).await,
        json!(1),
        "the server's tool saw its token cancelled"
    );
}

/// How many calls the test server saw cancelled, once it says one (5 s at most: the
/// notification travels on its own).
async fn calls_cancelled_on_the_server(registry: &tool_sdk::ToolRegistry) -> Value {
    let mut cancelled = Value::Null;
    for _ in 0..50 {
        let output = registry
            .call("cancelled_calls", "{}")
            .await
            .expect("answers");
        cancelled = serde_json::from_str(output.content()).expect("a number");
        if cancelled == json!(1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    cancelled
}
