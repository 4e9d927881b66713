//! Every compensating action is bounded: one that hangs, asynchronously or by holding its
//! thread, is reported as timed out and the rest of the rollback still runs, newest first, in
//! the loop and in recovery; recovery retries a timed-out action a bounded number of times,
//! with the same idempotency key, then reports it for good.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::MAX_COMPENSATION_ATTEMPTS;
use tool_sdk::store::{InMemoryRunStore, Orphans, RunStore};
use tool_sdk::{
    define::ToolError, define_tool, AssistantMessage, Message, ScriptedModel, ToolCall,
    ToolRegistry,
};
use tool_sdk_tests::booking::{self, Timeline};

/// Bounds each test: a rollback that hangs fails the test instead of the suite.
const GUARD: Duration = Duration::from_secs(20);

fn reply(id: &str, name: &str) -> AssistantMessage {
    AssistantMessage::with_tool_calls(vec![ToolCall::new(id, name, r#"{"reference": "r"}"#)])
}

/// `book` (compensation logs `cancel KEY`), `hang` (compensation never ends; declares a 100 ms
/// timeout), `block` (compensation holds its thread until `release` is sent), `fail`, and
/// `slow` (takes an hour: a run stopped inside it is a crashed one).
fn tools(timeline: &Timeline, release: Option<mpsc::Receiver<()>>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(booking::book(timeline, "book")).unwrap();
    let undo = Arc::clone(timeline);
    registry
        .register(define_tool!(
            /// Books something whose cancellation never answers.
            #[tool(name = "hang", timeout = "100ms", compensate = move |_args, _booking: String| {
                let undo = Arc::clone(&undo);
                async move {
                    let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
                    undo.lock().unwrap().push(format!("try {key}"));
                    std::future::pending::<()>().await;
                }
            })]
            |reference: String| -> String { format!("booked {reference}") }
        ))
        .unwrap();
    let undo = Arc::clone(timeline);
    let release = Mutex::new(release);
    registry
        .register(define_tool!(
            /// Books something whose cancellation holds its thread.
            #[tool(name = "block", compensate = move |_args, _booking: String| {
                undo.lock().unwrap().push("blocking".into());
                if let Some(release) = release.lock().unwrap().take() {
                    let _ = release.recv();
                }
                undo.lock().unwrap().push("unblocked".into());
            })]
            |reference: String| -> String { format!("booked {reference}") }
        ))
        .unwrap();
    registry.register(booking::fail()).unwrap();
    registry
        .register(define_tool!(
            /// Takes an hour.
            #[tool(name = "slow")]
            async move |reference: String| -> String {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                reference
            }
        ))
        .unwrap();
    registry
}

fn lines(timeline: &Timeline) -> Vec<String> {
    timeline.lock().unwrap().clone()
}

#[tokio::test]
async fn a_hung_compensation_times_out_and_the_rollback_goes_on() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([reply("a", "book"), reply("h", "hang"), reply("f", "fail")]);
    let agent = ToolLoop::new(model, tools(&timeline, None));
    let mut conversation = vec![Message::user("book")];
    let outcome = tokio::time::timeout(GUARD, agent.run(&mut conversation))
        .await
        .expect("the rollback finishes");
    assert!(matches!(outcome.status, LoopStatus::RolledBack { .. }));
    // Each compensation's key, and whether it failed by timing out.
    let reports: Vec<(&str, Option<bool>)> = outcome
        .compensations
        .iter()
        .map(|c| {
            (
                c.key.as_str(),
                c.result
                    .as_ref()
                    .err()
                    .map(|e| matches!(e, ToolError::TimedOut { .. })),
            )
        })
        .collect();
    // The tool's declared timeout bounds its compensation; the older call is still undone.
    assert_eq!(reports, [("h", Some(true)), ("a", None)]);
    let run = &outcome.run_id;
    assert_eq!(
        lines(&timeline),
        [
            "book".to_owned(),
            format!("try {run}:2:h"),
            format!("cancel {run}:1:a"),
        ]
    );
    // The model is told the rollback of that call did not finish.
    let Some(Message::Tool(result)) = conversation.get(4) else {
        panic!("the hung call's result: {conversation:?}");
    };
    assert!(result.content.contains("timed out"), "{}", result.content);
}

#[tokio::test]
async fn a_compensation_that_holds_its_thread_does_not_hold_the_rollback() {
    let timeline = Timeline::default();
    let (release, released) = mpsc::channel();
    let model = ScriptedModel::new([reply("a", "book"), reply("b", "block"), reply("f", "fail")]);
    // A single-threaded runtime: the blocked action must not be running on its thread.
    let agent = ToolLoop::new(model, tools(&timeline, Some(released)))
        .with_compensation_timeout(Duration::from_millis(200));
    let mut conversation = vec![Message::user("book")];
    let outcome = tokio::time::timeout(GUARD, agent.run(&mut conversation))
        .await
        .expect("the rollback finishes");
    let reports: Vec<(&str, Option<bool>)> = outcome
        .compensations
        .iter()
        .map(|c| {
            (
                c.key.as_str(),
                c.result
                    .as_ref()
                    .err()
                    .map(|e| matches!(e, ToolError::TimedOut { .. })),
            )
        })
        .collect();
    assert_eq!(reports, [("b", Some(true)), ("a", None)]);
    // The run came back while the action still held its thread.
    assert!(!lines(&timeline).contains(&"unblocked".to_owned()));
    release.send(()).unwrap();
    // Once let go, the action finishes on its own thread.
    for _ in 0..200 {
        if lines(&timeline).contains(&"unblocked".to_owned()) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the released action never finished: {:?}", lines(&timeline));
}

#[tokio::test]
async fn recovery_bounds_each_compensation_and_retries_a_timed_out_one_a_few_times() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let model = ScriptedModel::new([reply("a", "book"), reply("h", "hang"), reply("s", "slow")]);
    let crashed = ToolLoop::new(model, tools(&timeline, None)).with_store(Arc::new(store.handle()));
    let mut conversation = vec![Message::user("book")];
    // The process stops inside `slow`.
    let stopped =
        tokio::time::timeout(Duration::from_millis(300), crashed.run(&mut conversation)).await;
    assert!(stopped.is_err());

    let mut attempts = Vec::new();
    for _ in 0..MAX_COMPENSATION_ATTEMPTS + 1 {
        // Each recovery is another process: its own owner of the store.
        let restarted = ToolLoop::new(ScriptedModel::new([]), tools(&timeline, None))
            .with_store(Arc::new(store.handle()));
        let recovered = tokio::time::timeout(GUARD, restarted.recover(Orphans::All))
            .await
            .expect("recovery finishes")
            .unwrap();
        attempts.push(
            recovered
                .iter()
                .flat_map(|run| &run.compensations)
                .map(|c| {
                    (
                        c.key.clone(),
                        c.result
                            .as_ref()
                            .err()
                            .map(|e| matches!(e, ToolError::TimedOut { .. })),
                    )
                })
                .collect::<Vec<_>>(),
        );
    }
    let timed_out = ("h".to_owned(), Some(true));
    let mut expected = vec![vec![timed_out.clone(), ("a".to_owned(), None)]];
    for _ in 1..MAX_COMPENSATION_ATTEMPTS {
        expected.push(vec![timed_out.clone()]);
    }
    // After the last attempt the entry is reported failed for good: nothing is left.
    expected.push(vec![]);
    assert_eq!(attempts, expected);
    let tries: Vec<String> = lines(&timeline)
        .into_iter()
        .filter(|line| line.starts_with("try "))
        .collect();
    assert_eq!(tries.len(), MAX_COMPENSATION_ATTEMPTS as usize);
    assert!(tries.windows(2).all(|pair| pair[0] == pair[1]), "{tries:?}");
    assert_eq!(
        lines(&timeline)
            .iter()
            .filter(|line| line.starts_with("cancel "))
            .count(),
        1
    );
}

#[tokio::test]
async fn a_run_whose_rollback_timed_out_is_left_to_recovery() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let model = ScriptedModel::new([reply("a", "book"), reply("h", "hang"), reply("f", "fail")]);
    let agent = ToolLoop::new(model, tools(&timeline, None)).with_store(Arc::new(store.handle()));
    let mut conversation = vec![Message::user("book")];
    let outcome = tokio::time::timeout(GUARD, agent.run(&mut conversation))
        .await
        .expect("the rollback finishes");
    assert_eq!(outcome.compensations.len(), 2);
    // Released at once: another owner finds it expired, with only the timed-out call to redo.
    let orphan = store
        .handle()
        .claim_orphan(Orphans::Expired, Duration::from_secs(60), &[])
        .await
        .unwrap()
        .expect("the run is left for recovery");
    assert_eq!(orphan.run, outcome.run_id);
    let pending: Vec<(&str, u32)> = orphan
        .pending
        .iter()
        .map(|entry| (entry.key.as_str(), entry.attempts))
        .collect();
    assert_eq!(pending, [("h", 1)]);
}

#[tokio::test]
async fn the_replica_that_released_a_run_tries_it_again_itself() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let model = ScriptedModel::new([reply("h", "hang"), reply("s", "slow")]);
    let crashed = ToolLoop::new(model, tools(&timeline, None)).with_store(Arc::new(store.handle()));
    let mut conversation = vec![Message::user("book")];
    let stopped =
        tokio::time::timeout(Duration::from_millis(300), crashed.run(&mut conversation)).await;
    assert!(stopped.is_err());

    // One long-lived replica, recovering now and then.
    let lease = Duration::from_millis(100);
    let replica = ToolLoop::new(ScriptedModel::new([]), tools(&timeline, None))
        .with_store(Arc::new(store.handle()))
        .with_lease(lease);
    let first = replica.recover(Orphans::All).await.unwrap();
    assert_eq!(first.len(), 1, "one pass tries the run once");
    // Too early: the released run waits a lease before anyone takes it again.
    assert!(replica.recover(Orphans::Expired).await.unwrap().is_empty());
    tokio::time::sleep(lease * 2).await;
    let again = replica.recover(Orphans::Expired).await.unwrap();
    assert_eq!(
        again.len(),
        1,
        "released, not kept: its own replica takes it again"
    );
    let tries = lines(&timeline)
        .iter()
        .filter(|line| line.starts_with("try "))
        .count();
    assert_eq!(tries, 2);
}
