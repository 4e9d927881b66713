//! Who decided: every decision a run is resumed with is recorded with the run (who, when, on
//! which call as it stood, and what), kept with it in every store, read at its next pause and
//! handed out in its outcome, whichever loop on the store resumed it.

use std::sync::Arc;
use std::time::SystemTime;

use tool_sdk::gate::{fingerprint, ConfirmationPolicy, Gate, Sealer};
use tool_sdk::model::check_conversation;
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::DecisionRecord;
use tool_sdk::{Message, ScriptedModel, ToolCall};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::replies::{answer, calls, paused};

/// What a record says, without its time.
fn said(record: &DecisionRecord) -> (&str, &str, bool, Option<&str>, Option<&str>) {
    (
        record.key.as_str(),
        record.tool.as_str(),
        record.allowed,
        record.message.as_deref(),
        record.decider.as_deref(),
    )
}

async fn decisions_are_kept_with_the_run(backend: Backend) {
    let place = place(backend, "decided_by").await;
    let sealer = Sealer::new(b"the application's 32-byte secret").unwrap();
    let timeline = Timeline::default();
    let model = Arc::new(ScriptedModel::new([
        calls(&[
            ("c1", "book_flight", r#"{"reference":"F1"}"#),
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
        ]),
        calls(&[("c3", "book_car", r#"{"reference":"C1"}"#)]),
        answer("Flight and hotel booked."),
    ]));
    let agent = |store| {
        ToolLoop::new(Arc::clone(&model), booking_tools(&timeline, &[]))
            .with_gate(Gate::new(
                ConfirmationPolicy::new()
                    .with_confirmed_tool("book_hotel")
                    .with_confirmed_tool("book_car"),
            ))
            .with_store(store)
    };
    let first = agent(place.open().await.sealed(sealer.row_seal()).run_store());
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = first.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    assert!(turn.decisions().is_empty(), "nothing was decided yet");

    let before = SystemTime::now();
    let decisions = turn
        .decide()
        .allow("c1")
        .allow("c2")
        .build()
        .with_decider("ana");
    let outcome = first
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    let again = paused(&outcome.status);
    // Only the call that waited is a person's decision; the flight ran without asking.
    let kept: Vec<_> = again.decisions().iter().map(said).collect();
    assert_eq!(kept, [("c2", "book_hotel", true, None, Some("ana"))]);
    let hotel = ToolCall::new("c2", "book_hotel", r#"{"reference":"H1"}"#);
    assert_eq!(again.decisions()[0].fingerprint, fingerprint(&hotel));
    assert_eq!(&again.decisions()[0].pause, turn.pause());
    assert!(again.decisions()[0].decided_at >= before);

    // Another loop on the store (a restart, a replica) resumes the second pause.
    let second = agent(place.open().await.sealed(sealer.row_seal()).run_store());
    let decisions = again
        .decide()
        .deny("c3", "No car this time.")
        .build()
        .with_decider("ben");
    let outcome = second
        .resume(&mut conversation, again.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    let kept: Vec<_> = outcome.decisions.iter().map(said).collect();
    assert_eq!(
        kept,
        [
            ("c2", "book_hotel", true, None, Some("ana")),
            (
                "c3",
                "book_car",
                false,
                Some("No car this time."),
                Some("ben")
            ),
        ]
    );
    assert!(outcome.decisions[0].decided_at <= outcome.decisions[1].decided_at);
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1"]);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn decisions_are_kept_with_the_run_in_sqlite() {
    decisions_are_kept_with_the_run(Backend::Sqlite).await;
}

#[tokio::test]
async fn decisions_are_kept_with_the_run_in_postgres() {
    decisions_are_kept_with_the_run(Backend::Postgres).await;
}

#[tokio::test]
async fn a_run_without_a_store_records_its_decisions_too() {
    let timeline = Timeline::default();
    let agent = ToolLoop::new(
        ScriptedModel::new([
            calls(&[("c1", "book_hotel", r#"{"reference":"H9"}"#)]),
            answer("Booked."),
        ]),
        booking_tools(&timeline, &[]),
    )
    .with_gate(Gate::new(
        ConfirmationPolicy::new().with_confirmed_tool("book_hotel"),
    ));
    let mut conversation = vec![Message::user("Book a hotel")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    let decisions = turn.decide().allow("c1").build();
    let outcome = agent
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    let kept: Vec<_> = outcome.decisions.iter().map(said).collect();
    // Decisions that say no decider record none.
    assert_eq!(kept, [("c1", "book_hotel", true, None, None)]);
}
