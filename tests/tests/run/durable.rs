//! The loop on a run store: write-ahead of compensable successes, resuming a paused run from
//! another loop, the lease heartbeat and takeover (its rollbacks are checked in
//! `compensate_durable.rs`).

use std::sync::Arc;
use std::time::Duration;

use tool_sdk::gate::GateError;
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::{InMemoryRunStore, Orphans, RunStore, SqliteStore, StoreError};
use tool_sdk::{
    define::{Confirm, ToolOptions},
    register::DynamicTool,
    AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry,
};
use tool_sdk_tests::booking::{book_slow_and_fail as tools, Timeline};
use tool_sdk_tests::durable::Watched;
use tool_sdk_tests::replies::{answer, calls_with_reference as calls};

#[tokio::test]
async fn a_success_is_recorded_before_the_next_call_starts_and_dropped_when_the_run_ends() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let watched = Watched {
        inner: Arc::new(store.handle()),
        timeline: Arc::clone(&timeline),
        refuse_records: false,
        hold_after_pause: Duration::ZERO,
    };
    let model = ScriptedModel::new([
        calls(&[("a", "book")]),
        calls(&[("b", "book")]),
        answer("done"),
    ]);
    let agent =
        ToolLoop::new(model, tools(&timeline, Duration::ZERO)).with_store(Arc::new(watched));
    let mut conversation = vec![Message::user("book twice")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(
        *timeline.lock().unwrap(),
        ["start book", "recorded book", "start book", "recorded book"]
    );
    // Answered: the record is gone, nothing is left for recovery.
    assert_eq!(
        store
            .handle()
            .claim_orphan(Orphans::All, Duration::from_secs(1), &[])
            .await
            .unwrap(),
        None
    );
    assert!(outcome.store_error.is_none());
}

fn transfer_tools(timeline: &Timeline) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let log = Arc::clone(timeline);
    registry
        .register(
            DynamicTool::new(
                "transfer",
                "Sends money.",
                serde_json::json!({"type": "object", "properties": {}}),
                move |_| {
                    let log = Arc::clone(&log);
                    async move {
                        log.lock().unwrap().push("transfer".into());
                        Ok::<_, String>("sent".to_owned())
                    }
                },
            )
            .unwrap()
            .with_options(ToolOptions::new().with_confirm(Confirm::Always)),
        )
        .unwrap();
    registry
}

#[tokio::test]
async fn a_run_paused_by_one_loop_is_resumed_by_another_once() {
    let dir = std::env::temp_dir().join(format!("tool-sdk-durable-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.db");
    let timeline = Timeline::default();

    // The first process pauses and hands the id to a person.
    let first = ToolLoop::new(
        ScriptedModel::new([AssistantMessage::with_tool_calls(vec![ToolCall::new(
            "x", "transfer", "{}",
        )])]),
        transfer_tools(&timeline),
    )
    .with_store(Arc::new(SqliteStore::open(&path).unwrap()));
    let mut conversation = vec![Message::user("pay")];
    let LoopStatus::Paused(paused) = first.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    let id = paused.id().clone();
    drop(first);

    // Another process (its own store handle) gets the decision.
    let second = ToolLoop::new(
        ScriptedModel::new([answer("sent")]),
        transfer_tools(&timeline),
    )
    .with_store(Arc::new(SqliteStore::open(&path).unwrap()));
    let cancel = tool_sdk::run::CancellationToken::new();
    // Decisions that do not fit are refused, and the run stays paused.
    let wrong = paused.decide().build();
    let refused = second
        .resume(&mut conversation, &id, &wrong)
        .with_cancel(&cancel)
        .await;
    assert!(
        matches!(refused, Err(ref error) if error.is_decisions()),
        "{refused:?}"
    );
    let decisions = paused.decide().allow("x").build();
    let outcome = second
        .resume(&mut conversation, &id, &decisions)
        .with_cancel(&cancel)
        .await
        .unwrap();
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(outcome.run_id, id);
    assert_eq!(*timeline.lock().unwrap(), ["transfer"]);

    // Used up, whoever asks — even with the run in hand.
    let again = second
        .resume(&mut conversation, &id, &decisions)
        .with_cancel(&cancel)
        .await;
    assert!(
        matches!(&again, Err(GateError::AlreadyDecided { pause }) if pause == paused.pause()),
        "{again:?}"
    );
    let third = ToolLoop::new(
        ScriptedModel::new([answer("sent")]),
        transfer_tools(&timeline),
    )
    .with_store(Arc::new(SqliteStore::open(&path).unwrap()));
    let again = third
        .resume(&mut conversation, paused.id(), &decisions)
        .with_cancel(&cancel)
        .await;
    assert!(
        matches!(again, Err(GateError::AlreadyDecided { .. })),
        "{again:?}"
    );
    assert_eq!(*timeline.lock().unwrap(), ["transfer"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_heartbeat_keeps_a_long_call_owned_and_a_takeover_stops_the_run_after_its_call() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let model = ScriptedModel::new([
        calls(&[("a", "book")]),
        calls(&[("s", "slow")]),
        answer("done"),
    ]);
    let agent = ToolLoop::new(model, tools(&timeline, Duration::from_secs(3)))
        .with_store(Arc::new(store.handle()))
        .with_lease(Duration::from_millis(200));
    let mut conversation = vec![Message::user("book")];
    let replica = store.handle();
    let run = agent.run(&mut conversation);
    let watch = async {
        // Well past the lease, the run is still renewed: not expired.
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(
            replica
                .claim_orphan(Orphans::Expired, Duration::from_secs(60), &[])
                .await
                .unwrap(),
            None
        );
        // Taken over anyway (as a process at start-up would): the run must stop.
        replica
            .claim_orphan(Orphans::All, Duration::from_secs(60), &[])
            .await
            .unwrap()
            .expect("the running run")
    };
    let (outcome, orphan) = tokio::join!(run, watch);
    assert!(
        matches!(outcome.status, LoopStatus::StoreFailed)
            && matches!(outcome.store_error, Some(StoreError::Lost(_))),
        "{:?} {:?}",
        outcome.status,
        outcome.store_error
    );
    // The new owner has the record. The call in flight was let finish; the store refused its
    // record, so nobody else knows of it, and the old owner rolled it back itself.
    assert_eq!(orphan.pending.len(), 1);
    assert_eq!(orphan.pending[0].key, "a");
    let undone: Vec<&str> = outcome
        .compensations
        .iter()
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(undone, ["s"]);
    let cancels: Vec<String> = timeline
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.starts_with("cancel"))
        .cloned()
        .collect();
    assert_eq!(cancels, ["cancel slow"]);
}

#[tokio::test]
async fn a_renewal_that_meets_its_run_paused_leaves_it_paused() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let watched = Watched {
        inner: Arc::new(store.handle()),
        timeline: Arc::clone(&timeline),
        refuse_records: false,
        // Renewals come every 20 ms: several find the run paused before the pause returns.
        hold_after_pause: Duration::from_millis(200),
    };
    let model = ScriptedModel::new([AssistantMessage::with_tool_calls(vec![ToolCall::new(
        "x", "transfer", "{}",
    )])]);
    let agent = ToolLoop::new(model, transfer_tools(&timeline))
        .with_store(Arc::new(watched))
        .with_lease(Duration::from_millis(60));
    let mut conversation = vec![Message::user("pay")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Paused(_)),
        "{:?}",
        outcome.status
    );
    assert!(store.handle().load_paused(&outcome.run_id).await.is_ok());
}
