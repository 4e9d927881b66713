//! The history of decisions: each pause a run was resumed from is kept by the run's store,
//! running while the resumed run runs, then how it ended, with what was asked, who decided
//! what and what was rolled back; any process sharing the store lists it, newest first, paged.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::{define_tool, Message, ScriptedModel, ToolRegistry};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::replies::{answer, calls, paused};

async fn decided_runs_are_kept_and_listed_by_any_process(backend: Backend) {
    let place = place(backend, "history").await;
    let timeline = Timeline::default();
    // Two runs: the first answers once decided; the second is rolled back after its hotel.
    let model = Arc::new(ScriptedModel::new([
        calls(&[("c1", "book_hotel", r#"{"reference":"H1"}"#)]),
        answer("Hotel H1 booked."),
        calls(&[("c2", "book_hotel", r#"{"reference":"H2"}"#)]),
        calls(&[("c3", "book_car", r#"{"reference":"C2"}"#)]),
    ]));
    let agent = |store| {
        ToolLoop::new(Arc::clone(&model), booking_tools(&timeline, &["car"]))
            .with_gate(Gate::new(
                ConfirmationPolicy::new().with_confirmed_tool("book_hotel"),
            ))
            .with_store(store)
    };
    let first = agent(place.open().await.run_store());
    let elsewhere = place.open().await.run_store();

    let mut one = vec![Message::user("Book hotel H1")];
    let outcome = first.run(&mut one).await;
    let turn = paused(&outcome.status).clone();
    assert!(elsewhere.list_decided(0, 10).await.unwrap().is_empty());
    let decisions = turn.decide().allow("c1").build().with_decider("ana");
    let outcome = first.resume(&mut one, turn.id(), &decisions).await.unwrap();
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));

    let mut two = vec![Message::user("Book hotel H2 and a car")];
    let outcome = first.run(&mut two).await;
    let second = paused(&outcome.status).clone();
    let decisions = second.decide().allow("c2").build().with_decider("ben");
    let outcome = first
        .resume(&mut two, second.id(), &decisions)
        .await
        .unwrap();
    assert!(matches!(outcome.status, LoopStatus::RolledBack { .. }));

    // Another process sees both, newest first.
    let listed = elsewhere.list_decided(0, 10).await.unwrap();
    assert_eq!(listed.len(), 2, "{listed:?}");
    let (newest, oldest) = (&listed[0], &listed[1]);
    assert_eq!(&newest.run, second.id());
    assert_eq!(&newest.pause, second.pause());
    assert_eq!(newest.asked.as_deref(), Some("Book hotel H2 and a car"));
    assert_eq!(newest.decisions.len(), 1);
    assert_eq!(newest.decisions[0].decider.as_deref(), Some("ben"));
    let ended = newest.ended.as_ref().expect("the run ended");
    assert!(
        ended.how.starts_with("rolled back: `book_car` failed"),
        "{}",
        ended.how
    );
    assert_eq!(ended.rollbacks.len(), 1);
    assert_eq!(ended.rollbacks[0].tool, "book_hotel");
    assert_eq!(ended.rollbacks[0].failed, None);

    assert_eq!(&oldest.run, turn.id());
    assert_eq!(oldest.asked.as_deref(), Some("Book hotel H1"));
    assert_eq!(oldest.decisions[0].decider.as_deref(), Some("ana"));
    let ended = oldest.ended.as_ref().expect("the run ended");
    assert_eq!(ended.how, "answered");
    assert_eq!(ended.answer.as_deref(), Some("Hotel H1 booked."));
    assert!(oldest.decided_at <= newest.decided_at);

    // Paged.
    let page = elsewhere.list_decided(1, 1).await.unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(&page[0].run, turn.id());
    assert!(elsewhere.list_decided(2, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn decided_runs_are_kept_and_listed_by_any_process_in_sqlite() {
    decided_runs_are_kept_and_listed_by_any_process(Backend::Sqlite).await;
}

#[tokio::test]
async fn decided_runs_are_kept_and_listed_by_any_process_in_postgres() {
    decided_runs_are_kept_and_listed_by_any_process(Backend::Postgres).await;
}

#[tokio::test]
async fn a_run_being_resumed_is_listed_as_running_then_ended() {
    let place = place(Backend::Sqlite, "history_running").await;
    let release = Arc::new(Notify::new());
    let held = Arc::clone(&release);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Waits until the test lets it finish.
            #[tool(name = "pay", confirm)]
            async move |euros: u32| -> String {
                held.notified().await;
                format!("paid {euros}")
            }
        ))
        .unwrap();
    let agent = Arc::new(
        ToolLoop::new(
            ScriptedModel::new([calls(&[("c1", "pay", r#"{"euros":5}"#)]), answer("Paid.")]),
            registry,
        )
        .with_store(place.open().await.run_store()),
    );
    let elsewhere = place.open().await.run_store();
    let mut conversation = vec![Message::user("Pay 5")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status).clone();
    let resuming = {
        let agent = Arc::clone(&agent);
        let turn = turn.clone();
        tokio::spawn(async move {
            let decisions = turn.decide().allow("c1").build();
            let mut conversation = vec![Message::user("Pay 5")];
            agent
                .resume(&mut conversation, turn.id(), &decisions)
                .await
                .map(|outcome| outcome.status)
        })
    };
    // While the tool runs, the history says the run is running.
    let mut running = None;
    for _ in 0..200 {
        let listed = elsewhere.list_decided(0, 10).await.unwrap();
        if let Some(first) = listed.into_iter().next() {
            running = Some(first);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let running = running.expect("the resumed run is listed while it runs");
    assert!(running.is_running(), "{running:?}");
    assert_eq!(running.asked.as_deref(), Some("Pay 5"));
    release.notify_one();
    let status = resuming.await.unwrap().unwrap();
    assert!(matches!(status, LoopStatus::Answered(_)), "{status:?}");
    let listed = elsewhere.list_decided(0, 10).await.unwrap();
    assert_eq!(listed.len(), 1, "one record per decided pause: {listed:?}");
    assert!(!listed[0].is_running());
}
