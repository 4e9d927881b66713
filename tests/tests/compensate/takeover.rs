//! Two owners of one durable store: a run's lease is kept alive while a tool blocks its thread,
//! and when the run is taken over anyway, every successful compensable call is rolled back
//! exactly once, by one owner or the other, a call that finished late included. Replicas that
//! recover at once, while a compensating action outlasts the lease, roll back each call once
//! and end their passes.

use std::sync::Arc;
use std::time::Duration;

use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::{InMemoryRunStore, Orphans, RunStore, StoreError};
use tool_sdk::{define_tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};
use tool_sdk_tests::booking::{self, Timeline};
use tool_sdk_tests::durable::{place, Backend};

fn reply(id: &str, name: &str) -> AssistantMessage {
    AssistantMessage::with_tool_calls(vec![ToolCall::new(id, name, r#"{"reference": "r"}"#)])
}

fn answer() -> AssistantMessage {
    AssistantMessage {
        text: Some("done".into()),
        tool_calls: vec![],
    }
}

/// `book` (compensable, at once), `block` (compensable, a synchronous tool that holds its
/// thread for `hold`), and `fail`. Each compensation logs `cancel <idempotency key>`.
fn tools(timeline: &Timeline, hold: Duration) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(booking::book(timeline, "book")).unwrap();
    let (log, undo) = (Arc::clone(timeline), Arc::clone(timeline));
    registry
        .register(define_tool!(
            /// Books, holding its thread.
            #[tool(name = "block", compensate = move |_args, _booking: String| {
                let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
                undo.lock().unwrap().push(format!("cancel {key}"));
            })]
            move |reference: String| -> String {
                std::thread::sleep(hold);
                log.lock().unwrap().push("block".into());
                format!("booked {reference}")
            }
        ))
        .unwrap();
    registry.register(booking::fail()).unwrap();
    registry
}

fn cancels(timeline: &Timeline) -> Vec<String> {
    let mut cancels: Vec<String> = timeline
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.starts_with("cancel "))
        .cloned()
        .collect();
    cancels.sort();
    cancels
}

/// A synchronous tool holds its thread four times as long as the lease: the lease is renewed
/// meanwhile, so a second owner looking for expired runs finds none, and the rollback after
/// the later failure is done once, here.
async fn a_blocking_tool_keeps_its_run_leased(backend: Backend) {
    let place = place(backend, "blocking_tool_leased").await;
    let timeline = Timeline::default();
    // Long enough that a loaded machine's slow renewal does not let it lapse.
    let lease = Duration::from_millis(800);
    let agent = ToolLoop::new(
        ScriptedModel::new([reply("b", "block"), reply("f", "fail")]),
        tools(&timeline, lease * 4),
    )
    .with_store(place.open().await.run_store())
    .with_lease(lease);
    let other = place.open().await.run_store();
    let watcher = tokio::spawn(async move {
        let mut claimed = Vec::new();
        for _ in 0..32 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if let Some(orphan) = other
                .claim_orphan(Orphans::Expired, Duration::from_secs(60), &[])
                .await
                .unwrap()
            {
                claimed.push(orphan.run);
            }
        }
        claimed
    });
    let mut conversation = vec![Message::user("book")];
    let outcome = agent.run(&mut conversation).await;
    let claimed = watcher.await.unwrap();
    assert!(claimed.is_empty(), "taken over while leased: {claimed:?}");
    assert!(
        matches!(outcome.status, LoopStatus::RolledBack { .. }),
        "{:?}",
        outcome.status
    );
    assert_eq!(
        cancels(&timeline),
        [format!("cancel {}:1:b", outcome.run_id)]
    );
}

/// A second owner takes the run over while a compensable call still runs (as a process at
/// start-up does), and rolls back what the record shows; the call then succeeds in the first
/// owner, whose record of it is refused: the first owner rolls that call back itself.
async fn a_call_that_finishes_after_a_takeover_is_rolled_back_by_its_owner(backend: Backend) {
    let place = place(backend, "late_call_after_takeover").await;
    let timeline = Timeline::default();
    let agent = ToolLoop::new(
        ScriptedModel::new([reply("a", "book"), reply("b", "block"), answer()]),
        tools(&timeline, Duration::from_millis(1500)),
    )
    .with_store(place.open().await.run_store())
    .with_lease(Duration::from_millis(300));
    let successor = ToolLoop::new(
        ScriptedModel::new([]),
        tools(&timeline, Duration::from_millis(1500)),
    )
    .with_store(place.open().await.run_store());
    let takeover = tokio::spawn(async move {
        // The first owner is inside `block` by now.
        tokio::time::sleep(Duration::from_millis(500)).await;
        successor.recover(Orphans::All).await.unwrap()
    });
    let mut conversation = vec![Message::user("book")];
    let outcome = agent.run(&mut conversation).await;
    let recovered = takeover.await.unwrap();
    let run = &outcome.run_id;
    assert!(
        matches!(outcome.status, LoopStatus::StoreFailed)
            && matches!(outcome.store_error, Some(StoreError::Lost(_))),
        "{:?} {:?}",
        outcome.status,
        outcome.store_error
    );
    // The successor rolled back what was recorded; the owner, the call it could not record.
    assert_eq!(recovered.len(), 1);
    let by_successor: Vec<&str> = recovered[0]
        .compensations
        .iter()
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(by_successor, ["a"]);
    let by_owner: Vec<&str> = outcome
        .compensations
        .iter()
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(by_owner, ["b"]);
    assert_eq!(
        cancels(&timeline),
        [format!("cancel {run}:1:a"), format!("cancel {run}:2:b")]
    );
    // Nothing left for anyone.
    let last = place.open().await.run_store();
    assert_eq!(
        last.claim_orphan(Orphans::All, Duration::from_secs(1), &[])
            .await
            .unwrap(),
        None
    );
}

/// `book` (its compensation logs `cancel KEY` at once), `linger` (its compensation logs
/// `cancel KEY`, then takes `undo_takes`, within a 5 s timeout, and logs `undone KEY`), and `stall` (never returns: a
/// process stopped inside it crashed there).
fn lingering_tools(timeline: &Timeline, undo_takes: Duration) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(booking::book(timeline, "book")).unwrap();
    let undo = Arc::clone(timeline);
    registry
        .register(define_tool!(
            /// Books something whose cancellation takes a while.
            #[tool(name = "linger", timeout = "5s", compensate = move |_args, _booking: String| {
                let undo = Arc::clone(&undo);
                async move {
                    let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
                    undo.lock().unwrap().push(format!("cancel {key}"));
                    tokio::time::sleep(undo_takes).await;
                    undo.lock().unwrap().push(format!("undone {key}"));
                }
            })]
            |reference: String| -> String { format!("booked {reference}") }
        ))
        .unwrap();
    registry.register(booking::stall()).unwrap();
    registry
}

/// The lease of the runs whose compensating action outlasts it four times.
const LEASE: Duration = Duration::from_millis(200);

/// A replica over `store`, with the lingering tools, as a process that recovers orphans.
fn replica(store: &Arc<dyn RunStore>, timeline: &Timeline, undo_takes: Duration) -> ToolLoop {
    ToolLoop::new(
        ScriptedModel::new([]),
        lingering_tools(timeline, undo_takes),
    )
    .with_store(Arc::clone(store))
    .with_lease(LEASE)
}

/// A process crashes after `book` and `linger` succeeded; `handles` (each its own owner) then
/// recover expired orphans every 50 ms for 3 s, as replicas do, with a 200 ms lease, while
/// cancelling `linger` takes 800 ms. Each pass ends, and each call is rolled back once.
async fn replicas_recover_a_slow_rollback_once(handles: Vec<Arc<dyn RunStore>>) {
    let timeline = Timeline::default();
    let undo_takes = Duration::from_millis(800);
    let (crashed, replicas) = handles.split_first().unwrap();
    let agent = ToolLoop::new(
        ScriptedModel::new([
            reply("a", "book"),
            reply("b", "linger"),
            reply("c", "stall"),
        ]),
        lingering_tools(&timeline, undo_takes),
    )
    .with_store(Arc::clone(crashed))
    .with_lease(LEASE);
    let mut conversation = vec![Message::user("book")];
    // The process stops inside `stall`: its run is dropped where it stands, renewed no more.
    let stopped = tokio::time::timeout(Duration::from_millis(300), agent.run(&mut conversation));
    assert!(stopped.await.is_err(), "the run stalls");

    let passes = replicas.iter().map(|store| {
        let replica = replica(store, &timeline, undo_takes);
        tokio::spawn(async move {
            let mut recovered = Vec::new();
            let until = tokio::time::Instant::now() + Duration::from_secs(3);
            while tokio::time::Instant::now() < until {
                // A pass rolls back one 800 ms action; two seconds bound it with room to spare.
                let pass =
                    tokio::time::timeout(Duration::from_secs(2), replica.recover(Orphans::Expired))
                        .await
                        .expect("a recovery pass ends");
                recovered.extend(pass.unwrap());
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            recovered
        })
    });
    let mut recovered = Vec::new();
    for pass in passes.collect::<Vec<_>>() {
        recovered.extend(pass.await.unwrap());
    }
    let run = recovered
        .first()
        .map(|r| r.run.clone())
        .expect("the run is recovered");
    assert_eq!(
        recovered.len(),
        1,
        "recovered by one replica, once: {recovered:?}"
    );
    let keys: Vec<&str> = recovered[0]
        .compensations
        .iter()
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(keys, ["b", "a"], "newest first");
    assert_eq!(
        cancels(&timeline),
        [format!("cancel {run}:1:a"), format!("cancel {run}:2:b")]
    );
    assert_eq!(
        replicas[0]
            .claim_orphan(Orphans::All, LEASE, &[])
            .await
            .unwrap(),
        None,
        "the run ended"
    );
}

/// A run's own rollback whose compensating action takes four leases, while `handles[1..]`
/// recover expired orphans every 50 ms, as replicas do: the run keeps its lease during the
/// action, so no replica takes it, and the run rolls back each call once, itself.
async fn a_slow_rollback_of_a_run_keeps_its_lease(handles: Vec<Arc<dyn RunStore>>) {
    let timeline = Timeline::default();
    let undo_takes = Duration::from_millis(800);
    let (owner, replicas) = handles.split_first().unwrap();
    let mut registry = lingering_tools(&timeline, undo_takes);
    registry.register(booking::fail()).unwrap();
    let agent = ToolLoop::new(
        ScriptedModel::new([reply("a", "book"), reply("b", "linger"), reply("c", "fail")]),
        registry,
    )
    .with_store(Arc::clone(owner))
    .with_lease(LEASE);
    let running = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let passes = replicas.iter().map(|store| {
        let replica = replica(store, &timeline, undo_takes);
        let running = Arc::clone(&running);
        tokio::spawn(async move {
            let mut recovered = Vec::new();
            while running.load(std::sync::atomic::Ordering::SeqCst) {
                recovered.extend(replica.recover(Orphans::Expired).await.unwrap());
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            recovered
        })
    });
    let passes: Vec<_> = passes.collect();
    let mut conversation = vec![Message::user("book")];
    let outcome = tokio::time::timeout(Duration::from_secs(10), agent.run(&mut conversation))
        .await
        .expect("the run ends");
    running.store(false, std::sync::atomic::Ordering::SeqCst);
    let mut recovered = Vec::new();
    for pass in passes {
        recovered.extend(pass.await.unwrap());
    }
    assert!(
        recovered.is_empty(),
        "taken over while leased: {recovered:?}"
    );
    assert!(
        matches!(outcome.status, LoopStatus::RolledBack { .. }),
        "{:?}",
        outcome.status
    );
    let keys: Vec<&str> = outcome
        .compensations
        .iter()
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(keys, ["b", "a"], "newest first");
    let run = &outcome.run_id;
    assert_eq!(
        cancels(&timeline),
        [format!("cancel {run}:1:a"), format!("cancel {run}:2:b")]
    );
}

async fn a_slow_rollback_keeps_its_lease_against_two_replicas(backend: Backend) {
    let place = place(backend, "slow_own_rollback").await;
    let mut handles = Vec::new();
    for _ in 0..3 {
        handles.push(place.open().await.run_store());
    }
    a_slow_rollback_of_a_run_keeps_its_lease(handles).await;
}

async fn two_replicas_recover_a_slow_rollback_once(backend: Backend) {
    let place = place(backend, "slow_rollback_two").await;
    let mut handles = Vec::new();
    for _ in 0..3 {
        handles.push(place.open().await.run_store());
    }
    replicas_recover_a_slow_rollback_once(handles).await;
}

async fn three_replicas_recover_a_slow_rollback_once(backend: Backend) {
    let place = place(backend, "slow_rollback_three").await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(place.open().await.run_store());
    }
    replicas_recover_a_slow_rollback_once(handles).await;
}

tool_sdk_tests::on_both_stores!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    a_blocking_tool_keeps_its_run_leased,
    a_call_that_finishes_after_a_takeover_is_rolled_back_by_its_owner,
    two_replicas_recover_a_slow_rollback_once,
    three_replicas_recover_a_slow_rollback_once,
    a_slow_rollback_keeps_its_lease_against_two_replicas,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_recover_a_slow_rollback_once_in_memory() {
    let store = InMemoryRunStore::new();
    for replicas in [2, 3] {
        let handles: Vec<Arc<dyn RunStore>> = (0..=replicas)
            .map(|_| Arc::new(store.handle()) as Arc<dyn RunStore>)
            .collect();
        replicas_recover_a_slow_rollback_once(handles).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_rollback_keeps_its_lease_against_two_replicas_in_memory() {
    let store = InMemoryRunStore::new();
    let handles: Vec<Arc<dyn RunStore>> = (0..3)
        .map(|_| Arc::new(store.handle()) as Arc<dyn RunStore>)
        .collect();
    a_slow_rollback_of_a_run_keeps_its_lease(handles).await;
}

/// A call that finishes after a takeover is known only to its owner: when its compensation
/// times out, nobody can try it later, so the owner tries again itself, with the same key, up
/// to the bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_only_rollback_that_times_out_is_tried_again_in_place() {
    let timeline = Timeline::default();
    let mut registry = ToolRegistry::new();
    let undo = Arc::clone(&timeline);
    registry
        .register(define_tool!(
            /// Books, holding its thread; cancelling never answers.
            #[tool(name = "stuck", timeout = "50ms", compensate = move |_args, _booking: String| {
                let undo = Arc::clone(&undo);
                async move {
                    let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
                    undo.lock().unwrap().push(format!("try {key}"));
                    std::future::pending::<()>().await;
                }
            })]
            |reference: String| -> String {
                std::thread::sleep(Duration::from_millis(600));
                format!("booked {reference}")
            }
        ))
        .unwrap();
    let store = tool_sdk::store::InMemoryRunStore::new();
    let agent = ToolLoop::new(
        ScriptedModel::new([reply("s", "stuck"), answer()]),
        registry,
    )
    .with_store(Arc::new(store.handle()))
    .with_lease(Duration::from_secs(60));
    let successor = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
        .with_store(Arc::new(store.handle()));
    let takeover = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        successor.recover(Orphans::All).await.unwrap()
    });
    let mut conversation = vec![Message::user("book")];
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(takeover.await.unwrap().len(), 1);
    assert!(matches!(outcome.status, LoopStatus::StoreFailed));
    assert!(matches!(outcome.store_error, Some(StoreError::Lost(_))));
    assert_eq!(outcome.compensations.len(), 1);
    assert!(matches!(
        outcome.compensations[0].result,
        Err(tool_sdk::ToolError::TimedOut { .. })
    ));
    let tries: Vec<String> = timeline.lock().unwrap().clone();
    let key = format!("try {}:1:s", outcome.run_id);
    assert_eq!(
        tries,
        vec![key; tool_sdk::store::MAX_COMPENSATION_ATTEMPTS as usize]
    );
}

/// A recovery pass dropped while a compensating action runs (its caller gave up on it, or its
/// process shuts down) stops that action: it never goes on beside the next owner's attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_recovery_stops_the_compensating_action_it_started() {
    let timeline = Timeline::default();
    let undo_takes = Duration::from_millis(600);
    let store = InMemoryRunStore::new();
    let agent = ToolLoop::new(
        ScriptedModel::new([reply("b", "linger"), reply("c", "stall")]),
        lingering_tools(&timeline, undo_takes),
    )
    .with_store(Arc::new(store.handle()))
    .with_lease(LEASE);
    let mut conversation = vec![Message::user("book")];
    let stopped = tokio::time::timeout(Duration::from_millis(300), agent.run(&mut conversation));
    assert!(stopped.await.is_err(), "the run stalls");

    let successor: Arc<dyn RunStore> = Arc::new(store.handle());
    let recovering = replica(&successor, &timeline, undo_takes);
    let pass = recovering.recover(Orphans::All);
    let started = async {
        while cancels(&timeline).is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        _ = pass => panic!("the pass ended before its compensating action"),
        () = started => {}
    }
    // The pass was dropped there, mid-compensation.

    tokio::time::sleep(undo_takes * 2).await;
    let undone: Vec<String> = timeline
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.starts_with("undone "))
        .cloned()
        .collect();
    assert!(
        undone.is_empty(),
        "the dropped pass's action went on: {undone:?}"
    );
}
