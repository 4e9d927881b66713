//! Edit, then allow: a person corrects a waiting call's arguments before allowing it. The call
//! runs with theirs (and is rolled back with theirs), the model reads that a person changed
//! them and to what, the run records both the call as seen and the call as run, and arguments
//! that do not fit the tool are refused before anything runs.

use tool_sdk::gate::{fingerprint, ConfirmationPolicy, Gate, GateError, Kept, Sealer};
use tool_sdk::model::check_conversation;
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::{AssistantMessage, Message, ScriptedModel, ToolCall};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::replies::{answer, calls, paused, result_of};

async fn an_edited_call_runs_with_the_persons_arguments(backend: Backend) {
    let place = place(backend, "edited").await;
    let timeline = Timeline::default();
    // The car fails after the hotel ran: the hotel is rolled back with the arguments it ran with.
    let agent = ToolLoop::new(
        ScriptedModel::new([
            calls(&[("c1", "book_hotel", r#"{"reference":"H1"}"#)]),
            calls(&[("c2", "book_car", r#"{"reference":"C1"}"#)]),
        ]),
        booking_tools(&timeline, &["car"]),
    )
    .with_gate(Gate::new(
        ConfirmationPolicy::new().with_confirmed_tool("book_hotel"),
    ))
    .with_store(place.open().await.run_store());
    let mut conversation = vec![Message::user("Book a hotel and a car")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status).clone();

    // Arguments that do not fit the tool are refused; nothing ran and the run still waits.
    let unfit = turn.decide().allow_edited("c1", r#"{"ref": 7}"#).build();
    let refused = agent
        .resume(&mut conversation, turn.id(), &unfit)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, GateError::EditRefused { key, reason } if key == "c1" && reason.contains("reference")),
        "{refused:?}"
    );
    assert!(timeline.lock().unwrap().is_empty());

    let edited = turn
        .decide()
        .allow_edited("c1", r#"{"reference":"H2"}"#)
        .build()
        .with_decider("ana");
    let outcome = agent
        .resume(&mut conversation, turn.id(), &edited)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::RolledBack { .. }),
        "{:?}",
        outcome.status
    );
    // What ran, and what was undone, is the person's call, not the model's.
    assert_eq!(
        *timeline.lock().unwrap(),
        ["book H2", "fail C1", "cancel B-H2 (H2)"]
    );
    // The model's reply stands as it was; its result says what a person changed.
    let asked = conversation.iter().find_map(|message| match message {
        Message::Assistant(reply) => reply.tool_calls.first().cloned(),
        _ => None,
    });
    assert_eq!(
        asked.map(|call| call.arguments).as_deref(),
        Some(r#"{"reference":"H1"}"#)
    );
    // Rolled back, the result says so, and still what the call ran with.
    let told = result_of(&conversation, "c1");
    assert!(
        told.contains(
            "A person changed this call's arguments before it ran; it ran with {\"reference\":\"H2\"}"
        ),
        "{told}"
    );
    assert!(
        told.contains("rolled back") && told.ends_with("B-H2"),
        "{told}"
    );
    check_conversation(&conversation).unwrap();

    // The record keeps the call as seen and the call as run.
    let record = &outcome.decisions[0];
    let seen = ToolCall::new("c1", "book_hotel", r#"{"reference":"H1"}"#);
    let ran = ToolCall::new("c1", "book_hotel", r#"{"reference":"H2"}"#);
    assert_eq!(record.fingerprint, fingerprint(&seen));
    assert_eq!(
        record.edited_arguments.as_deref(),
        Some(r#"{"reference":"H2"}"#)
    );
    assert_eq!(
        record.edited_fingerprint.as_deref(),
        Some(fingerprint(&ran).as_str())
    );
    assert_eq!(record.decider.as_deref(), Some("ana"));
    assert!(record.allowed);
}

#[tokio::test]
async fn an_edited_call_runs_with_the_persons_arguments_in_sqlite() {
    an_edited_call_runs_with_the_persons_arguments(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_edited_call_runs_with_the_persons_arguments_in_postgres() {
    an_edited_call_runs_with_the_persons_arguments(Backend::Postgres).await;
}

#[tokio::test]
async fn the_gate_alone_runs_an_edit_and_refuses_an_unfit_one_without_using_the_token() {
    let timeline = Timeline::default();
    let registry = booking_tools(&timeline, &[]);
    let gate = Gate::new(ConfirmationPolicy::new().with_confirmed_tool("book_hotel"));
    let sealer = Sealer::new(b"the application's 32-byte secret").unwrap();
    let reply = AssistantMessage::with_tool_calls(vec![ToolCall::new(
        "c1",
        "book_hotel",
        r#"{"reference":"H5"}"#,
    )]);
    let turn = gate.check(&registry, registry.names(), &reply).unwrap();
    let token = sealer.seal(&turn).unwrap();
    let kept = Kept::Sealed {
        sealer: &sealer,
        token: &token,
    };
    let unfit = turn.decide().allow_edited("c1", "not json").build();
    let refused = gate.resume(&registry, kept, &unfit).await.unwrap_err();
    assert!(
        matches!(refused, GateError::EditRefused { .. }),
        "{refused:?}"
    );
    let edited = turn
        .decide()
        .allow_edited("c1", r#"{"reference":"H6"}"#)
        .build();
    let results = gate.resume(&registry, kept, &edited).await.unwrap();
    assert!(results[0].to_message().content.ends_with("B-H6"));
    assert_eq!(*timeline.lock().unwrap(), ["book H6"]);
}

#[tokio::test]
async fn an_edit_binds_to_the_call_as_shown() {
    // An edit made for other arguments than the call has is refused, as any allowance is.
    let timeline = Timeline::default();
    let agent = ToolLoop::new(
        ScriptedModel::new([
            calls(&[("c1", "book_hotel", r#"{"reference":"H7"}"#)]),
            answer("Booked."),
        ]),
        booking_tools(&timeline, &[]),
    )
    .with_gate(Gate::new(
        ConfirmationPolicy::new().with_confirmed_tool("book_hotel"),
    ));
    let mut conversation = vec![Message::user("Book a hotel")];
    let first = agent.run(&mut conversation).await;
    let turn = paused(&first.status);
    let mut forged = tool_sdk::gate::ToolCallDecisions::for_pause(turn.pause().clone());
    forged.push(tool_sdk::gate::ToolCallDecision::allow_edited(
        "c1",
        fingerprint(&ToolCall::new(
            "c1",
            "book_hotel",
            r#"{"reference":"other"}"#,
        )),
        r#"{"reference":"H8"}"#,
    ));
    let refused = agent
        .resume(&mut conversation, turn.id(), &forged)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, GateError::ArgumentsChanged { .. }),
        "{refused:?}"
    );
    assert!(timeline.lock().unwrap().is_empty());
}
