//! A budget that asks ([`OnExhausted::Ask`]): a limit reached pauses the run like a gated
//! call; a person's allowance extends the budget (its limits granted again) and the run goes on,
//! a denial ends it or answers the model; the pause and its extensions are kept with the run in
//! every store, and a decision extends one run once.

use std::sync::Arc;

use tool_sdk::gate::GateError;
use tool_sdk::model::{check_conversation, ToolResultStatus, Usage};
use tool_sdk::run::{Budget, BudgetLimit, LoopOptions, LoopStatus, OnExhausted, ToolLoop};
use tool_sdk::store::PausedTurn;
use tool_sdk::{AssistantMessage, Message, ScriptedModel};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::replies::{answer, calls};

/// Three rounds of one booking each, then an answer.
fn three_bookings() -> Vec<AssistantMessage> {
    vec![
        calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
        calls(&[("c2", "book_hotel", r#"{"reference":"H1"}"#)]),
        calls(&[("c3", "book_car", r#"{"reference":"C1"}"#)]),
        answer("All booked."),
    ]
}

/// A model answering [`three_bookings`], reporting 100 tokens read and 20 written per request.
fn model() -> Arc<ScriptedModel> {
    Arc::new(ScriptedModel::new(three_bookings()).with_usage(Usage::new(100, 20)))
}

/// A loop of `model` under `budget`, asking when it is exhausted.
fn asking_loop(model: &Arc<ScriptedModel>, timeline: &Timeline, budget: Budget) -> ToolLoop {
    ToolLoop::new(Arc::clone(model), booking_tools(timeline, &[]))
        .with_options(LoopOptions::new().with_budget(budget.with_on_exhausted(OnExhausted::Ask)))
}

/// A loop of its own [`model`] under `budget`, asking when it is exhausted.
fn asking_agent(timeline: &Timeline, budget: Budget) -> ToolLoop {
    asking_loop(&model(), timeline, budget)
}

fn paused(status: &LoopStatus) -> &PausedTurn {
    match status {
        LoopStatus::Paused(paused) => paused,
        other => panic!("the run waits for a person: {other:?}"),
    }
}

/// Whether any message of the conversation mentions the loop's own call.
fn mentions_extend_budget(conversation: &[Message]) -> bool {
    conversation.iter().any(|message| {
        serde_json::to_string(message)
            .unwrap()
            .contains("extend_budget")
    })
}

#[tokio::test]
async fn a_token_limit_pauses_on_the_loops_own_call_and_an_allowance_lets_the_run_go_on() {
    let timeline = Timeline::default();
    // 120 tokens a request: 240 after two requests reach 230.
    let agent = asking_agent(&timeline, Budget::new().with_total_tokens(230));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    assert_eq!(turn.budget_reached(), Some("240 tokens used of 230"));
    let pending: Vec<_> = turn.calls().collect();
    assert_eq!(pending.len(), 1);
    assert!(pending[0].awaiting);
    assert_eq!(pending[0].call.name, "extend_budget");
    assert!(
        pending[0].call.arguments.contains("240 tokens used of 230"),
        "{}",
        pending[0].call.arguments
    );
    assert_eq!(outcome.rounds, 2);
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1"]);
    check_conversation(&conversation).unwrap();
    assert_eq!(
        conversation.len(),
        5,
        "the pause adds nothing to the conversation"
    );

    let decisions = turn.decide().allow(&pending[0].key).build();
    let outcome = agent
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    // Extended to 460: two more requests (480 tokens in all) fit, the last one answers.
    assert!(
        matches!(&outcome.status, LoopStatus::Answered(reply) if reply.text.as_deref() == Some("All booked.")),
        "{:?}",
        outcome.status
    );
    assert_eq!(outcome.usage, Usage::new(400, 80));
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1", "book C1"]);
    check_conversation(&conversation).unwrap();
    assert!(
        !mentions_extend_budget(&conversation),
        "the model never reads the loop's own call: {conversation:#?}"
    );
}

#[tokio::test]
async fn a_denied_extension_ends_the_run_with_the_limit_its_work_kept() {
    let timeline = Timeline::default();
    let agent = asking_agent(&timeline, Budget::new().with_total_tokens(230));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    let decisions = turn
        .decide()
        .deny(&turn.awaiting()[0], "No more spending today.")
        .build();
    let outcome = agent
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(
            outcome.status,
            LoopStatus::BudgetExhausted(BudgetLimit::TotalTokens {
                used: 240,
                limit: 230
            })
        ),
        "{:?}",
        outcome.status
    );
    assert!(outcome.compensations.is_empty(), "nothing is rolled back");
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1"]);
    check_conversation(&conversation).unwrap();
    assert_eq!(conversation.len(), 5);
    assert!(!mentions_extend_budget(&conversation));
}

#[tokio::test]
async fn a_reply_past_the_call_limit_waits_with_every_call_and_runs_the_allowed_ones() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "book_flight", r#"{"reference":"F1"}"#),
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
            ("c3", "book_car", r#"{"reference":"C1"}"#),
        ]),
        calls(&[("c4", "book_car", r#"{"reference":"C2"}"#)]),
        answer("Flight and hotel booked; the car another day."),
    ]);
    let budget = Budget::new()
        .with_tool_calls(2)
        .with_on_exhausted(OnExhausted::Ask);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]))
        .with_options(LoopOptions::new().with_budget(budget));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    assert_eq!(
        turn.budget_reached(),
        Some("3 tool calls asked for, 2 allowed")
    );
    let keys: Vec<String> = turn.calls().map(|pending| pending.key).collect();
    assert_eq!(turn.awaiting(), keys, "every call of the reply waits");
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran");

    let decisions = turn
        .decide()
        .allow(&keys[0])
        .allow(&keys[1])
        .deny(&keys[2], "No car.")
        .build();
    let outcome = agent
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    // Extended to 4 calls: the next reply's one call (the fourth) fits.
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1", "book C2"]);
    check_conversation(&conversation).unwrap();
    let statuses: Vec<ToolResultStatus> = conversation
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) => Some(result.status),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ToolResultStatus::Success,
            ToolResultStatus::Success,
            ToolResultStatus::Denied,
            ToolResultStatus::Success
        ]
    );
}

#[tokio::test]
async fn an_approver_extends_the_budget_in_process() {
    let timeline = Timeline::default();
    let agent = asking_agent(&timeline, Budget::new().with_total_tokens(150)).with_approver(
        |paused: &PausedTurn| {
            assert!(paused.budget_reached().is_some(), "only the budget asks");
            paused.decide().allow_rest().build()
        },
    );
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    // 150, then 300, then 450: each of the requests 2, 3 and 4 is asked about once.
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(timeline.lock().unwrap().len(), 3);
    check_conversation(&conversation).unwrap();
}

/// The pause and each extension are kept with the run in the store, sealed: another loop on
/// the same store (a restart, a replica) resumes it, the run goes on under the extended limits,
/// and a decision extends the run once.
async fn an_extension_is_kept_with_the_run(backend: Backend) {
    let place = place(backend, "budget_ask").await;
    let sealer = tool_sdk::gate::Sealer::new(b"the application's 32-byte secret").unwrap();
    let store = place.open().await.sealed(sealer.row_seal()).run_store();
    let timeline = Timeline::default();
    // 120 a request against 110: the first request reaches it.
    let budget = Budget::new().with_total_tokens(110);
    // One model for both loops: the conversation goes on where it stopped.
    let model = model();
    let first = asking_loop(&model, &timeline, budget.clone()).with_store(Arc::clone(&store));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = first.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    assert_eq!(turn.budget_reached(), Some("120 tokens used of 110"));
    let listed = store.list_paused(10).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].turn.budget_reached(),
        Some("120 tokens used of 110"),
        "the store keeps what the pause asks"
    );

    // Another loop over the same store: a restart, or a replica.
    let other_store = place.open().await.sealed(sealer.row_seal()).run_store();
    let second = asking_loop(&model, &timeline, budget).with_store(other_store);
    let decisions = turn.decide().allow_rest().build();
    let outcome = second
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    // One extension: 220 allows the second request (240), then asks again.
    let again = paused(&outcome.status);
    assert_eq!(again.budget_reached(), Some("240 tokens used of 220"));
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1"]);
    assert!(
        matches!(
            first.resume(&mut conversation, turn.id(), &decisions).await,
            Err(GateError::AlreadyDecided { .. })
        ),
        "the first decision extended the run once"
    );

    let decisions = again.decide().allow_rest().build();
    let outcome = first
        .resume(&mut conversation, again.id(), &decisions)
        .await
        .unwrap();
    // Two extensions: 330 allows the third request (360), then asks again.
    let third = paused(&outcome.status);
    assert_eq!(third.budget_reached(), Some("360 tokens used of 330"));
    check_conversation(&conversation).unwrap();
    assert!(!mentions_extend_budget(&conversation));
}

#[tokio::test]
async fn an_extension_is_kept_with_the_run_in_sqlite() {
    an_extension_is_kept_with_the_run(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_extension_is_kept_with_the_run_in_postgres() {
    an_extension_is_kept_with_the_run(Backend::Postgres).await;
}
