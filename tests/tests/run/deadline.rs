//! Deadlines: a policy gives a pause a deadline; past it no call that waited may be allowed,
//! and each is denied with a reason the model reads, exactly once, by whichever of the
//! processes sharing the store sweeps first, or by the loop itself when its approver has not
//! answered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tool_sdk::gate::{ConfirmationPolicy, Gate, GateError, Sealer, ToolCallDecisions};
use tool_sdk::model::check_conversation;
use tool_sdk::run::{Approver, ApproverFuture, Conversation, LoopStatus, ToolLoop};
use tool_sdk::store::PausedTurn;
use tool_sdk::{Message, ScriptedModel};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::replies::{answer, calls, paused, result_of};

/// How long the tests' pauses wait.
const DEADLINE: Duration = Duration::from_millis(400);

fn policy() -> ConfirmationPolicy {
    ConfirmationPolicy::new()
        .with_confirmed_tool("book_hotel")
        .with_deadline(DEADLINE)
}

async fn overdue_runs_are_denied_once_across_replicas(backend: Backend) {
    let place = place(backend, "deadline").await;
    let sealer = Sealer::new(b"the application's 32-byte secret").unwrap();
    let timeline = Timeline::default();
    let model = Arc::new(ScriptedModel::new([
        calls(&[
            ("c1", "book_flight", r#"{"reference":"F1"}"#),
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
        ]),
        answer("The flight is booked; the hotel waited too long for a decision."),
    ]));
    let agent = |store| {
        ToolLoop::new(Arc::clone(&model), booking_tools(&timeline, &[]))
            .with_gate(Gate::new(policy()))
            .with_store(store)
    };
    let replica = || async {
        let store = place.open().await.sealed(sealer.row_seal());
        (agent(store.clone().run_store()), store.chat_memory())
    };
    let (first, first_memory) = replica().await;
    let (second, second_memory) = replica().await;

    let started = SystemTime::now();
    let outcome = first
        .run("Book my trip")
        .with_memory(&*first_memory, "ana")
        .await;
    let turn = paused(&outcome.status).clone();
    let deadline = turn
        .deadline()
        .expect("the policy gives the pause a deadline");
    assert!(deadline >= started + DEADLINE, "{deadline:?}");
    assert!(deadline <= SystemTime::now() + DEADLINE);
    // Nothing is overdue before the deadline.
    assert!(first
        .expire_overdue(&*first_memory)
        .await
        .unwrap()
        .is_empty());
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran yet");

    tokio::time::sleep(DEADLINE + Duration::from_millis(100)).await;
    // A person who comes late may no longer allow the call, in any replica; the run still
    // waits for its expiry.
    let late = turn.decide().allow("c1").allow("c2").build();
    let refused = second
        .resume(Conversation::Owned(Vec::new()), turn.id(), &late)
        .with_memory(&*second_memory, "ana")
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, GateError::DeadlinePassed { key, .. } if key == "c2"),
        "{refused:?}"
    );

    // Both replicas sweep at once: the run is expired by one of them, once.
    let (one, other) = tokio::join!(
        first.expire_overdue(&*first_memory),
        second.expire_overdue(&*second_memory)
    );
    let expired: Vec<_> = one.unwrap().into_iter().chain(other.unwrap()).collect();
    assert_eq!(expired.len(), 1, "{expired:?}");
    let outcome = &expired[0].outcome;
    assert_eq!(&expired[0].run, turn.id());
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    // The flight needed no one and ran; the hotel did not.
    assert_eq!(*timeline.lock().unwrap(), ["book F1"]);
    let records: Vec<_> = outcome
        .decisions
        .iter()
        .map(|record| {
            (
                record.key.as_str(),
                record.allowed,
                record.decider.as_deref(),
            )
        })
        .collect();
    assert_eq!(records, [("c2", false, Some("deadline"))]);
    // The model read why, in the conversation the memory keeps.
    let conversation = first_memory.load("ana").await.unwrap();
    assert!(
        result_of(&conversation, "c2").contains("no one decided on it before its deadline"),
        "{conversation:?}"
    );
    check_conversation(&conversation).unwrap();

    // Swept again, by either: nothing is left.
    assert!(first
        .expire_overdue(&*first_memory)
        .await
        .unwrap()
        .is_empty());
    assert!(second
        .expire_overdue(&*second_memory)
        .await
        .unwrap()
        .is_empty());
    assert_eq!(*timeline.lock().unwrap(), ["book F1"]);
}

#[tokio::test]
async fn overdue_runs_are_denied_once_across_replicas_in_sqlite() {
    overdue_runs_are_denied_once_across_replicas(Backend::Sqlite).await;
}

#[tokio::test]
async fn overdue_runs_are_denied_once_across_replicas_in_postgres() {
    overdue_runs_are_denied_once_across_replicas(Backend::Postgres).await;
}

/// An approver that never answers.
struct Silent;

impl Approver for Silent {
    fn decide<'a>(&'a self, _paused: &'a PausedTurn) -> ApproverFuture<'a> {
        let never: Pin<Box<dyn Future<Output = ToolCallDecisions> + Send>> =
            Box::pin(std::future::pending());
        never
    }
}

#[tokio::test]
async fn an_approver_that_does_not_answer_in_time_is_answered_for() {
    let timeline = Timeline::default();
    let agent = ToolLoop::new(
        ScriptedModel::new([
            calls(&[("c1", "book_hotel", r#"{"reference":"H9"}"#)]),
            answer("No one decided on the hotel."),
        ]),
        booking_tools(&timeline, &[]),
    )
    .with_gate(Gate::new(policy()))
    .with_approver(Silent);
    let mut conversation = vec![Message::user("Book a hotel")];
    // Bounded, so that a deadline not kept fails here instead of hanging.
    let outcome = tokio::time::timeout(Duration::from_secs(30), agent.run(&mut conversation))
        .await
        .expect("the deadline ends the wait for the approver");
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert!(timeline.lock().unwrap().is_empty());
    assert!(result_of(&conversation, "c1").contains("before its deadline"));
    assert_eq!(outcome.decisions.len(), 1);
    assert_eq!(outcome.decisions[0].decider.as_deref(), Some("deadline"));
}

#[tokio::test]
async fn a_sealed_turn_keeps_its_deadline() {
    let timeline = Timeline::default();
    let registry = booking_tools(&timeline, &[]);
    let gate = Gate::new(policy());
    let sealer = Sealer::new(b"the application's 32-byte secret").unwrap();
    let reply = tool_sdk::AssistantMessage::with_tool_calls(vec![tool_sdk::ToolCall::new(
        "c1",
        "book_hotel",
        r#"{"reference":"H2"}"#,
    )]);
    let turn = gate.check(&registry, registry.names(), &reply).unwrap();
    let token = sealer.seal(&turn).unwrap();
    let opened = sealer.open(&token).unwrap();
    assert_eq!(opened.turn().deadline(), turn.deadline());

    tokio::time::sleep(DEADLINE + Duration::from_millis(100)).await;
    let kept = tool_sdk::gate::Kept::Sealed {
        sealer: &sealer,
        token: &token,
    };
    let late = turn.decide().allow("c1").build();
    let refused = gate.resume(&registry, kept, &late).await.unwrap_err();
    assert!(
        matches!(refused, GateError::DeadlinePassed { .. }),
        "{refused:?}"
    );
    // Refused before the token is used: the expiry still resumes it, once.
    let results = gate.resume(&registry, kept, &turn.expiry()).await.unwrap();
    assert!(results[0]
        .to_message()
        .content
        .contains("before its deadline"));
    assert!(timeline.lock().unwrap().is_empty());
    let again = gate
        .resume(&registry, kept, &turn.expiry())
        .await
        .unwrap_err();
    assert!(matches!(again, GateError::Replayed), "{again:?}");
}
