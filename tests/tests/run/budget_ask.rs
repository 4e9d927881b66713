//! A budget that asks ([`OnExhausted::Ask`]): a limit reached pauses the run like a gated
//! call; a person's allowance extends the budget (its limits granted again) and the run goes on,
//! a denial ends it or answers the model; the pause and its extensions are kept with the run in
//! every store, and a decision extends one run once.

use std::sync::{Arc, Mutex};

use tool_sdk::gate::{ConfirmationPolicy, Gate, GateError, Kept};
use tool_sdk::model::{check_conversation, ToolResultStatus, Usage};
use tool_sdk::run::{
    event_fn, Budget, BudgetLimit, LoopEvent, LoopOptions, LoopStatus, OnExhausted, ToolLoop,
};
use tool_sdk::store::{InMemoryRunStore, PausedTurn, RunStore};
use tool_sdk::{AssistantMessage, Message, ScriptedModel, ToolRegistry};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::replies::{answer, calls, paused, tool_statuses};

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

/// A loop of `model` over the booking tools, allowed `calls` tool calls, asking when a reply
/// would pass them.
fn asking_for_calls(model: ScriptedModel, timeline: &Timeline, calls: usize) -> ToolLoop {
    let budget = Budget::new()
        .with_tool_calls(calls)
        .with_on_exhausted(OnExhausted::Ask);
    ToolLoop::new(model, booking_tools(timeline, &[]))
        .with_options(LoopOptions::new().with_budget(budget))
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
    assert_eq!(pending[0].call.name, "tool_sdk.extend_budget");
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
    // Extended at 240 to 470: two more requests (480 tokens in all) fit, the last answers.
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
    let agent = asking_for_calls(model, &timeline, 2);
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
    // Extended after the three calls asked: the next reply's one call fits a new budget of 2.
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1", "book C2"]);
    check_conversation(&conversation).unwrap();
    assert_eq!(
        tool_statuses(&conversation),
        [
            ToolResultStatus::Success,
            ToolResultStatus::Success,
            ToolResultStatus::Denied,
            ToolResultStatus::Success
        ]
    );
}

#[tokio::test]
async fn an_approver_extends_the_budget_in_process_and_the_observers_are_told() {
    let timeline = Timeline::default();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::new(Mutex::new(Vec::new()));
    let (kept, seen) = (Arc::clone(&asked), Arc::clone(&events));
    let agent = asking_agent(&timeline, Budget::new().with_total_tokens(150))
        .with_approver(move |paused: &PausedTurn| {
            kept.lock()
                .unwrap()
                .push(paused.budget_reached().map(str::to_owned));
            paused.decide().allow_rest().build()
        })
        .with_observer(event_fn(move |event: &LoopEvent| {
            if matches!(
                event,
                LoopEvent::BudgetExhausted { .. } | LoopEvent::BudgetExtended { .. }
            ) {
                seen.lock().unwrap().push(event.clone());
            }
        }));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    // 240 after two requests reaches 150; extended there to 390, which the next two fit.
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(
        *asked.lock().unwrap(),
        [Some("240 tokens used of 150".to_owned())],
        "asked once"
    );
    assert_eq!(
        *events.lock().unwrap(),
        [
            LoopEvent::BudgetExhausted {
                limit: BudgetLimit::TotalTokens {
                    used: 240,
                    limit: 150
                }
            },
            LoopEvent::BudgetExtended {
                reached: "240 tokens used of 150".into()
            },
        ]
    );
    assert_eq!(timeline.lock().unwrap().len(), 3);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn denying_every_call_of_a_reply_past_the_call_limit_ends_the_run() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "book_flight", r#"{"reference":"F1"}"#),
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
            ("c3", "no_such_tool", "{}"),
        ]),
        answer("never asked for"),
    ]);
    let agent = asking_for_calls(model, &timeline, 1);
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    // A call that cannot run is not put to the person.
    assert_eq!(turn.awaiting(), ["c1", "c2"]);
    let decisions = turn
        .decide()
        .deny("c1", "Stop here.")
        .deny("c2", "Stop here.")
        .allow("c3")
        .build();
    let outcome = agent
        .resume(&mut conversation, turn.id(), &decisions)
        .await
        .unwrap();
    assert!(
        matches!(
            outcome.status,
            LoopStatus::BudgetExhausted(BudgetLimit::ToolCalls { used: 3, limit: 1 })
        ),
        "{:?}",
        outcome.status
    );
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran");
    check_conversation(&conversation).unwrap();
    assert_eq!(
        tool_statuses(&conversation),
        [
            ToolResultStatus::Denied,
            ToolResultStatus::Denied,
            ToolResultStatus::Error
        ]
    );
}

#[tokio::test]
async fn a_tool_named_extend_budget_is_never_the_loops_own_call() {
    // The application has a tool of that name; the model calls it too.
    let called = Arc::new(Mutex::new(0));
    let count = Arc::clone(&called);
    let mut tools = booking_tools(&Timeline::default(), &[]);
    tools
        .register(tool_sdk::define_tool!(
            /// The application's own tool of that name.
            #[tool(name = "extend_budget")]
            move || {
                *count.lock().unwrap() += 1;
                "extended by the application".to_owned()
            }
        ))
        .unwrap();
    let model = ScriptedModel::new([calls(&[("m1", "extend_budget", "{}")]), answer("done")])
        .with_usage(Usage::new(100, 20));
    let budget = Budget::new()
        .with_total_tokens(100)
        .with_on_exhausted(OnExhausted::Ask);
    let store = Arc::new(InMemoryRunStore::new());
    let agent = ToolLoop::new(model, tools)
        .with_options(LoopOptions::new().with_budget(budget))
        .with_store(Arc::clone(&store) as Arc<dyn RunStore>);
    let mut conversation = vec![Message::user("Go")];
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(*called.lock().unwrap(), 1, "the model's call ran as a tool");
    let turn = paused(&outcome.status);
    assert_eq!(turn.reply().tool_calls[0].name, "tool_sdk.extend_budget");
    // The gate alone refuses the loop's pause: it would run the loop's call.
    let refused = Gate::default()
        .resume(
            &ToolRegistry::new(),
            Kept::Stored {
                store: &*store,
                id: turn.id(),
            },
            &turn.decide().allow_rest().build(),
        )
        .await;
    assert!(
        matches!(&refused, Err(GateError::BudgetPause { id }) if id == turn.id()),
        "{refused:?}"
    );
    // The loop resumes it: its own call runs nothing, the application's tool included.
    let outcome = agent
        .resume(
            &mut conversation,
            turn.id(),
            &turn.decide().allow_rest().build(),
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*called.lock().unwrap(), 1);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn a_pause_of_the_gate_after_an_extension_is_no_budget_pause() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new(three_bookings()).with_usage(Usage::new(100, 20));
    let budget = Budget::new()
        .with_total_tokens(130)
        .with_on_exhausted(OnExhausted::Ask);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]))
        .with_gate(Gate::new(
            ConfirmationPolicy::new().with_confirmed_tool("book_car"),
        ))
        .with_options(LoopOptions::new().with_budget(budget));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let turn = paused(&outcome.status);
    // Asked before the third request; extended there to 370, which the car's reply fits.
    assert_eq!(turn.budget_reached(), Some("240 tokens used of 130"));
    let outcome = agent
        .resume(
            &mut conversation,
            turn.id(),
            &turn.decide().allow_rest().build(),
        )
        .await
        .unwrap();
    // The car waits for the gate's policy: a pause that asks nothing of the budget.
    let car = paused(&outcome.status);
    assert_eq!(car.budget_reached(), None);
    assert_eq!(car.reply().tool_calls[0].name, "book_car");
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
    // Extended at 120: 230 allows the second request (240), then asks again.
    let again = paused(&outcome.status);
    assert_eq!(again.budget_reached(), Some("240 tokens used of 230"));
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
    // Extended at 240: 350 allows the third request (360), then asks again.
    let third = paused(&outcome.status);
    assert_eq!(third.budget_reached(), Some("360 tokens used of 350"));
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
