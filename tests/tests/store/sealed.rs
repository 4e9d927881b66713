//! Rows sealed at rest: someone who can write the database, but holds no key, edits a paused
//! turn or a compensation record entry, or moves one between runs. The store refuses the row on
//! load with `StoreError::Tampered`, nothing runs from it, and the row stays where it is: put
//! back as it was, it is used as if nothing had happened. A copy of a paused row put back after
//! its run was taken is refused too: a row cannot bring back what its pause consumed.
//!
//! Each scenario runs on SQLite and on PostgreSQL (`TOOL_SDK_POSTGRES_URL`, started by
//! `./scripts/test.sh`).

use std::sync::Arc;
use std::time::Duration;

use tool_sdk::gate::{GateError, Sealer};
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::{Orphans, PausedTurn, RunStore, StoreError};
use tool_sdk::{AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};
use tool_sdk_tests::booking::{self, Timeline};
use tool_sdk_tests::durable::{place, Backend, Place};

const KEY: &[u8; 32] = b"the application's 32-byte secret";

/// `transfer` (needs a decision; logs `transfer to NAME`), `book` (compensable; its
/// compensation logs `cancel KEY`) and `stall` (never answers: a process stopped inside it
/// crashed there).
fn tools(timeline: &Timeline) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(booking::transfer(timeline)).unwrap();
    registry.register(booking::book(timeline, "book")).unwrap();
    registry.register(booking::stall()).unwrap();
    registry
}

fn call(id: &str, name: &str, arguments: &str) -> AssistantMessage {
    AssistantMessage::with_tool_calls(vec![ToolCall::new(id, name, arguments)])
}

fn answer() -> AssistantMessage {
    AssistantMessage {
        text: Some("done".into()),
        tool_calls: vec![],
    }
}

async fn sealed_store(place: &Place) -> Arc<dyn RunStore> {
    let sealer = Sealer::new(KEY).unwrap();
    place.open().await.sealed(sealer.row_seal()).run_store()
}

fn tampered<T: std::fmt::Debug>(result: Result<T, StoreError>) -> bool {
    matches!(&result, Err(StoreError::Tampered { .. }))
}

/// Pauses a run on `transfer` to `to` through `store`; the run, and the loop to resume it.
async fn pause_transfer(
    store: &Arc<dyn RunStore>,
    timeline: &Timeline,
    to: &str,
) -> (ToolLoop, PausedTurn) {
    let agent = ToolLoop::new(
        ScriptedModel::new([
            call("t", "transfer", &format!(r#"{{"to": "{to}"}}"#)),
            answer(),
        ]),
        tools(timeline),
    )
    .with_store(Arc::clone(store));
    let mut conversation = vec![Message::user("pay")];
    let LoopStatus::Paused(paused) = agent.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    (agent, *paused)
}

/// A person approved the transfer to alice; someone then makes it a transfer to mallory in the
/// database. The resume is refused as tampered (not as changed arguments: the row is never
/// read), and nothing runs. Put back, the same approval goes through, once.
async fn an_edited_paused_turn_runs_nothing(backend: Backend) {
    let place = place(backend, "sealed_paused").await;
    let timeline = Timeline::default();
    let store = sealed_store(&place).await;
    let (agent, paused) = pause_transfer(&store, &timeline, "alice").await;
    let decisions = paused.decide().allow("t").build();

    let edit = "UPDATE tool_sdk_runs SET paused = replace(paused, 'alice', 'mallory')
                WHERE paused LIKE '%alice%'";
    assert_eq!(place.edit(edit).await, 1);
    let mut conversation = vec![Message::user("pay")];
    let refused = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await;
    assert!(
        matches!(&refused, Err(GateError::Store(StoreError::Tampered { .. }))),
        "{refused:?}"
    );
    assert!(tampered(store.load_paused(paused.id()).await));
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran");
    // A screen listing the waiting runs leaves the edited one out, and lists the others.
    let (_, honest) = pause_transfer(&store, &timeline, "bob").await;
    let listed: Vec<_> = store
        .list_paused(10)
        .await
        .unwrap()
        .into_iter()
        .map(|run| run.turn.id().clone())
        .collect();
    assert_eq!(listed, [honest.id().clone()]);

    let repair = "UPDATE tool_sdk_runs SET paused = replace(paused, 'mallory', 'alice')
                  WHERE paused LIKE '%mallory%'";
    assert_eq!(place.edit(repair).await, 1);
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*timeline.lock().unwrap(), ["transfer to alice"]);
}

/// A sealed row is bound to its run: the paused turn of one run copied over another's (its
/// pause id too) is refused, and so is a row written before the store had a seal, or read
/// by a store without it.
async fn a_paused_turn_moved_or_unsealed_is_refused(backend: Backend) {
    let place = place(backend, "sealed_moved").await;
    let timeline = Timeline::default();
    let store = sealed_store(&place).await;
    let (_, to_alice) = pause_transfer(&store, &timeline, "alice").await;
    let (_, to_bob) = pause_transfer(&store, &timeline, "bob").await;
    let (alice, bob) = (to_alice.id().as_str(), to_bob.id().as_str());
    let copy = format!(
        "UPDATE tool_sdk_runs SET
             paused = (SELECT paused FROM tool_sdk_runs WHERE id = '{bob}'),
             pause_id = (SELECT pause_id FROM tool_sdk_runs WHERE id = '{bob}')
         WHERE id = '{alice}'"
    );
    assert_eq!(place.edit(&copy).await, 1);
    assert!(tampered(store.load_paused(to_alice.id()).await));
    let taken = store
        .take_paused(to_alice.id(), to_bob.pause(), Duration::from_secs(30))
        .await;
    assert!(tampered(taken));
    // Refused without being taken: the genuine row of the other run still loads.
    assert_eq!(store.load_paused(to_bob.id()).await.unwrap(), to_bob);

    // Without the seal, a sealed row cannot be checked; with it, an unsealed row cannot be.
    let unsealed = place.open().await.run_store();
    assert!(tampered(unsealed.load_paused(to_bob.id()).await));
    let (_, before_the_seal) = pause_transfer(&unsealed, &timeline, "carol").await;
    assert!(tampered(store.load_paused(before_the_seal.id()).await));
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran");
}

/// A process crashes after `book` succeeded in two runs; someone edits the record of one. A
/// recovery refuses that run, compensating nothing of it, and still rolls back the other;
/// put back, the run is rolled back by the next recovery.
async fn an_edited_record_entry_compensates_nothing(backend: Backend) {
    let place = place(backend, "sealed_entry").await;
    let timeline = Timeline::default();
    let store = sealed_store(&place).await;
    let mut runs = Vec::new();
    for reference in ["first", "second"] {
        let agent = ToolLoop::new(
            ScriptedModel::new([
                call("a", "book", &format!(r#"{{"reference": "{reference}"}}"#)),
                call("s", "stall", r#"{"reference": "r"}"#),
            ]),
            tools(&timeline),
        )
        .with_store(Arc::clone(&store));
        let mut conversation = vec![Message::user("book")];
        let stopped =
            tokio::time::timeout(Duration::from_millis(300), agent.run(&mut conversation));
        assert!(stopped.await.is_err(), "the run stalls");
        runs.push(agent);
    }
    let edit = "UPDATE tool_sdk_run_entries SET entry = replace(entry, 'booked first', 'booked everything')
                WHERE entry LIKE '%booked first%'";
    assert_eq!(place.edit(edit).await, 1);

    let recoverer = ToolLoop::new(ScriptedModel::new([]), tools(&timeline))
        .with_store(sealed_store(&place).await);
    let recovered = recoverer.recover(Orphans::All).await.unwrap();
    assert_eq!(recovered.len(), 2, "{recovered:?}");
    let (refused, rolled_back): (Vec<_>, Vec<_>) =
        recovered.iter().partition(|run| run.refused.is_some());
    assert_eq!(refused.len(), 1, "{recovered:?}");
    assert!(refused[0].compensations.is_empty());
    assert!(
        matches!(refused[0].refused, Some(StoreError::Tampered { .. })),
        "{recovered:?}"
    );
    assert_eq!(rolled_back[0].compensations.len(), 1);
    let cancels = |timeline: &Timeline| {
        timeline
            .lock()
            .unwrap()
            .iter()
            .filter(|line| line.starts_with("cancel "))
            .cloned()
            .collect::<Vec<_>>()
    };
    let second = &rolled_back[0].run;
    assert_eq!(cancels(&timeline), [format!("cancel {second}:1:a")]);

    let repair = "UPDATE tool_sdk_run_entries SET entry = replace(entry, 'booked everything', 'booked first')
                  WHERE entry LIKE '%booked everything%'";
    assert_eq!(place.edit(repair).await, 1);
    let recovered = recoverer.recover(Orphans::All).await.unwrap();
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    assert_eq!(recovered[0].run, refused[0].run);
    assert!(recovered[0].refused.is_none());
    let first = &refused[0].run;
    assert_eq!(
        cancels(&timeline),
        [
            format!("cancel {second}:1:a"),
            format!("cancel {first}:1:a")
        ]
    );
}

/// A person approved the transfer to alice and it ran; someone who kept a copy of the paused
/// row puts it back, sealed as it was. The same decisions sent again are refused as tampered:
/// what a pause consumed is kept apart from its row, where putting the row back cannot undo
/// it. Nothing runs twice, and a screen does not list the row.
async fn a_paused_row_put_back_after_its_resume_is_refused(backend: Backend) {
    let place = place(backend, "sealed_replayed").await;
    let timeline = Timeline::default();
    let store = sealed_store(&place).await;
    let (agent, paused) = pause_transfer(&store, &timeline, "alice").await;
    let decisions = paused.decide().allow("t").build();
    place
        .edit("CREATE TABLE kept_copy AS SELECT * FROM tool_sdk_runs")
        .await;

    let mut conversation = vec![Message::user("pay")];
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*timeline.lock().unwrap(), ["transfer to alice"]);

    assert_eq!(
        place
            .edit("INSERT INTO tool_sdk_runs SELECT * FROM kept_copy")
            .await,
        1
    );
    let mut conversation = vec![Message::user("pay")];
    let replayed = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await;
    assert!(
        matches!(
            &replayed,
            Err(GateError::Store(StoreError::Tampered { .. }))
        ),
        "{replayed:?}"
    );
    assert!(tampered(store.load_paused(paused.id()).await));
    let taken = store
        .take_paused(paused.id(), paused.pause(), Duration::from_secs(30))
        .await;
    assert!(tampered(taken));
    assert!(store.list_paused(10).await.unwrap().is_empty());
    assert_eq!(*timeline.lock().unwrap(), ["transfer to alice"], "ran once");
}

/// A database of a version that kept no record of the waiting pauses: a run paused then is
/// still resumed, once, by the store that brings the schema up to date; a copy of its row put
/// back afterwards is refused like any other.
async fn a_run_paused_before_the_upgrade_resumes_once_after_it(backend: Backend) {
    let place = place(backend, "sealed_upgrade").await;
    let timeline = Timeline::default();
    let store = sealed_store(&place).await;
    let (agent, paused) = pause_transfer(&store, &timeline, "alice").await;
    let decisions = paused.decide().allow("t").build();
    // The schema as it was before the record of waiting pauses.
    place.edit("DROP TABLE tool_sdk_waiting_pauses").await;
    assert_eq!(
        place
            .edit("DELETE FROM tool_sdk_migrations WHERE version = 8")
            .await,
        1
    );
    place
        .edit("CREATE TABLE kept_copy AS SELECT * FROM tool_sdk_runs")
        .await;

    let upgraded = sealed_store(&place).await;
    let agent = agent.with_store(Arc::clone(&upgraded));
    let mut conversation = vec![Message::user("pay")];
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(
        place
            .edit("INSERT INTO tool_sdk_runs SELECT * FROM kept_copy")
            .await,
        1
    );
    assert!(tampered(upgraded.load_paused(paused.id()).await));
    assert_eq!(*timeline.lock().unwrap(), ["transfer to alice"], "ran once");
}

tool_sdk_tests::on_both_stores!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    an_edited_paused_turn_runs_nothing,
    a_paused_turn_moved_or_unsealed_is_refused,
    an_edited_record_entry_compensates_nothing,
    a_paused_row_put_back_after_its_resume_is_refused,
    a_run_paused_before_the_upgrade_resumes_once_after_it,
);
