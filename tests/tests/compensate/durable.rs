//! Rollback of a loop on a run store: a success the store cannot record is rolled back where it
//! ran, each rollback gets the run, round and call as its idempotency key, and recovery rolls
//! back a run whose process stopped.

use std::sync::Arc;
use std::time::Duration;

use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::{InMemoryRunStore, Orphans, StoreError};
use tool_sdk::{Message, ScriptedModel};
use tool_sdk_tests::booking::{book_slow_and_fail as tools, Timeline};
use tool_sdk_tests::durable::Watched;
use tool_sdk_tests::replies::{answer, calls_with_reference as calls};

#[tokio::test]
async fn a_success_that_cannot_be_recorded_stops_the_run_and_is_rolled_back_here() {
    let timeline = Timeline::default();
    let watched = Watched {
        inner: Arc::new(InMemoryRunStore::new()),
        timeline: Arc::clone(&timeline),
        refuse_records: true,
        hold_after_pause: Duration::ZERO,
    };
    let model = ScriptedModel::new([calls(&[("a", "book")]), calls(&[("b", "book")])]);
    let agent =
        ToolLoop::new(model, tools(&timeline, Duration::ZERO)).with_store(Arc::new(watched));
    let mut conversation = vec![Message::user("book")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::StoreFailed)
            && matches!(&outcome.store_error, Some(StoreError::Backend(m)) if m == "disk full"),
        "{:?} {:?}",
        outcome.status,
        outcome.store_error
    );
    // The second reply never came: the run did not go on unrecorded.
    assert_eq!(outcome.rounds, 1);
    let key = format!("{}:1:a", outcome.run_id);
    assert_eq!(
        *timeline.lock().unwrap(),
        ["start book".to_owned(), format!("cancel {key}")]
    );
    assert_eq!(outcome.compensations.len(), 1);
}

#[tokio::test]
async fn rollbacks_get_the_run_round_and_call_as_idempotency_key() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("a", "book")]),
        calls(&[("b", "book"), ("c", "fail")]),
    ]);
    let agent = ToolLoop::new(model, tools(&timeline, Duration::ZERO))
        .with_store(Arc::new(InMemoryRunStore::new()));
    let mut conversation = vec![Message::user("book")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::RolledBack { .. }));
    let run = &outcome.run_id;
    let cancels: Vec<String> = timeline
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.starts_with("cancel"))
        .cloned()
        .collect();
    assert_eq!(
        cancels,
        [format!("cancel {run}:2:b"), format!("cancel {run}:1:a")]
    );
}

#[tokio::test]
async fn recovery_rolls_back_a_run_whose_process_stopped() {
    let timeline = Timeline::default();
    let store = InMemoryRunStore::new();
    let model = ScriptedModel::new([
        calls(&[("a", "book")]),
        calls(&[("b", "book")]),
        calls(&[("s", "slow")]),
        answer("done"),
    ]);
    let crashed = ToolLoop::new(model, tools(&timeline, Duration::from_secs(3600)))
        .with_store(Arc::new(store.handle()));
    let mut conversation = vec![Message::user("book")];
    // The process stops while the slow call runs: its future is dropped where it stands.
    let stopped =
        tokio::time::timeout(Duration::from_millis(200), crashed.run(&mut conversation)).await;
    assert!(stopped.is_err());

    let restarted = ToolLoop::new(ScriptedModel::new([]), tools(&timeline, Duration::ZERO))
        .with_store(Arc::new(store.handle()));
    let recovered = restarted.recover(Orphans::All).await.unwrap();
    assert_eq!(recovered.len(), 1);
    let keys: Vec<&str> = recovered[0]
        .compensations
        .iter()
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(keys, ["b", "a"]);
    assert!(recovered[0].compensations.iter().all(|c| c.result.is_ok()));
    let run = &recovered[0].run;
    let lines = timeline.lock().unwrap().clone();
    assert_eq!(
        lines,
        [
            "start book".to_owned(),
            "start book".to_owned(),
            "start slow".to_owned(),
            format!("cancel {run}:2:b"),
            format!("cancel {run}:1:a"),
        ]
    );
    // Done once: nothing left.
    assert!(restarted.recover(Orphans::All).await.unwrap().is_empty());
}
