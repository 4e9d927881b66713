//! The tool-calling loop: rounds, concurrency, errors, cancellation, gating, providers (its
//! rollbacks are checked in `compensate_loop.rs`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::run::{event_fn, CancellationToken, Observer};
use tool_sdk::{
    define::{ToolError, ToolErrorKind},
    define_tool,
    model::{check_conversation, ToolResultStatus},
    register::DynamicTool,
    Message, ScriptedModel, Tool, ToolCall, ToolRegistry,
};
use tool_sdk::{
    register::{ProviderFuture, ToolProvider},
    run::{Concurrency, ErrorAction, ErrorPolicy, LoopEvent, LoopOptions, LoopStatus, ToolLoop},
};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::replies::{answer, calls};

#[tokio::test]
async fn the_loop_runs_calls_until_the_model_answers() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"reference":"LIS-OSL"}"#)]),
        calls(&[("c2", "book_hotel", r#"{"reference":"OSL-1"}"#)]),
        answer("All booked."),
    ]);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(outcome.rounds, 3);
    assert!(outcome.compensations.is_empty());
    assert_eq!(*timeline.lock().unwrap(), ["book LIS-OSL", "book OSL-1"]);
    check_conversation(&conversation).unwrap();
    assert_eq!(conversation.len(), 6);
}

#[tokio::test]
async fn an_argument_error_goes_back_to_the_model_and_rolls_nothing_back() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
        calls(&[("c2", "book_hotel", r#"{"ref":"H1"}"#)]),
        calls(&[("c3", "book_hotel", r#"{"reference":"H1"}"#)]),
        answer("Booked after a retry."),
    ]);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]));
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert!(outcome.compensations.is_empty());
    let Message::Tool(retry) = &conversation[4] else {
        panic!()
    };
    assert_eq!(retry.status, ToolResultStatus::Error);
    assert!(retry.content.contains("reference"), "{}", retry.content);
}

#[tokio::test]
async fn hallucinated_tool_names_go_to_the_model_or_fail_the_run() {
    let timeline = Timeline::default();
    let script = || {
        ScriptedModel::new([
            calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
            calls(&[("c2", "book_hotle", r#"{"reference":"H1"}"#)]),
            answer("done"),
        ])
    };
    let agent = ToolLoop::new(script(), booking_tools(&timeline, &[]));
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    let Message::Tool(result) = &conversation[4] else {
        panic!()
    };
    assert!(
        result.content.contains("`book_hotel`"),
        "{}",
        result.content
    );

    let strict = LoopOptions::default().with_errors(
        ErrorPolicy::new().with_action(ToolErrorKind::UnknownTool, ErrorAction::RollBack),
    );
    let agent = ToolLoop::new(script(), booking_tools(&timeline, &[])).with_options(strict);
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(&outcome.status, LoopStatus::RolledBack { name, .. } if name == "book_hotle"));
    assert_eq!(outcome.compensations.len(), 1);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn at_the_round_limit_the_outcome_says_so_and_keeps_the_work() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new(
        (0..5).map(|i| calls(&[("c", "book_flight", &format!(r#"{{"reference":"F{i}"}}"#))])),
    );
    let options = LoopOptions::default().with_max_rounds(3);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[])).with_options(options);
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::MaxRoundsReached));
    assert_eq!(outcome.rounds, 3);
    assert!(
        outcome.compensations.is_empty(),
        "reaching the limit is not a failure"
    );
    assert_eq!(timeline.lock().unwrap().len(), 3);
    check_conversation(&conversation).unwrap();
}

/// `meet` tools that each wait until all three have started: under `Bounded(3)` they meet;
/// run one after another, the first waits alone and answers `alone`.
fn meeting_tools(barrier: &Arc<tokio::sync::Barrier>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let barrier = Arc::clone(barrier);
    registry
        .register(define_tool!(
            /// Waits for the others, then for `millis`, then echoes.
            #[tool(name = "meet")]
            async move |text: String, millis: u64| {
                // A generous bound that only a missing overlap reaches (then it fails the test
                // instead of hanging it); never a measure of speed.
                let met = tokio::time::timeout(Duration::from_secs(10), barrier.wait()).await;
                if met.is_err() {
                    return "alone".to_owned();
                }
                tokio::time::sleep(Duration::from_millis(millis)).await;
                text
            }
        ))
        .unwrap();
    registry
}

#[tokio::test]
async fn concurrent_calls_overlap_and_answer_in_call_order() {
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    // The first call finishes last, the second first: results still come in call order.
    let reply = calls(&[
        ("a", "meet", r#"{"text":"first","millis":30}"#),
        ("b", "meet", r#"{"text":"second","millis":1}"#),
        ("c", "meet", r#"{"text":"third","millis":10}"#),
    ]);
    let model = ScriptedModel::new([reply, answer("ok")]);
    let options = LoopOptions::default().with_concurrency(Concurrency::Bounded(3));
    let agent = ToolLoop::new(model, meeting_tools(&barrier)).with_options(options);
    let mut conversation = vec![Message::user("go")];
    let _ = agent.run(&mut conversation).await;
    let contents: Vec<_> = conversation
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) => Some(r.content.as_str()),
            _ => None,
        })
        .collect();
    // All three were running at once (each passed the barrier), and in call order.
    assert_eq!(contents, ["first", "second", "third"]);
}

#[tokio::test]
async fn cancellation_drains_the_round_starts_nothing_new_and_rolls_back() {
    let timeline = Timeline::default();
    let cancel = CancellationToken::new();
    let mut registry = booking_tools(&timeline, &[]);
    let trigger = cancel.clone();
    let log = Arc::clone(&timeline);
    registry
        .register(define_tool!(
            /// Cancels the run, as a user pressing stop would.
            #[tool(name = "press_stop")]
            move || {
                log.lock().unwrap().push("stop".into());
                trigger.cancel();
            }
        ))
        .unwrap();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
        calls(&[
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
            ("c3", "press_stop", "{}"),
            ("c4", "book_car", r#"{"reference":"C1"}"#),
        ]),
        answer("never asked"),
    ]);
    let agent = ToolLoop::new(model, registry);
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).with_cancel(&cancel).await;
    assert!(matches!(outcome.status, LoopStatus::Cancelled));
    assert_eq!(
        *timeline.lock().unwrap(),
        [
            "book F1",
            "book H1",
            "stop",
            "cancel B-H1 (H1)",
            "cancel B-F1 (F1)"
        ],
        "the car was never booked"
    );
    let car = outcome
        .calls
        .iter()
        .find(|c| c.call.name == "book_car")
        .unwrap();
    assert!(!car.started);
    assert_eq!(outcome.rounds, 2, "no model call after cancellation");
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn gating_runs_inside_the_loop_paused_out_decisions_in() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "book_flight", r#"{"reference":"F1"}"#),
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
        ]),
        answer("Flight booked; the hotel was refused."),
    ]);
    let gate = Gate::new(ConfirmationPolicy::new().with_confirmed_tool("book_hotel"));
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[])).with_gate(gate);
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(outcome.status.paused().unwrap().awaiting(), ["c2"]);
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran");
    check_conversation(&conversation).unwrap();
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!()
    };
    let decisions = paused
        .decide()
        .deny("c2", "Too expensive.")
        .allow_rest()
        .build();
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(*timeline.lock().unwrap(), ["book F1"]);
    check_conversation(&conversation).unwrap();
    let Message::Tool(denied) = &conversation[3] else {
        panic!()
    };
    assert_eq!(
        (denied.status, denied.content.as_str()),
        (ToolResultStatus::Denied, "Too expensive.")
    );
}

#[tokio::test]
async fn a_gated_call_that_cannot_run_does_not_pause_the_run() {
    // The hotel needs a decision, but its arguments lack the reference: the call fails at
    // once and goes back to the model, and no one is asked to allow it.
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_hotel", r#"{"ref":"H1"}"#)]),
        answer("I could not book the hotel."),
    ]);
    let gate = Gate::new(ConfirmationPolicy::new().with_confirmed_tool("book_hotel"));
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[])).with_gate(gate);
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert!(timeline.lock().unwrap().is_empty(), "nothing ran");
    let Message::Tool(failed) = &conversation[2] else {
        panic!("{conversation:?}")
    };
    assert_eq!(failed.status, ToolResultStatus::Error);
    assert!(failed.content.contains("reference"), "{}", failed.content);
}

#[tokio::test]
async fn return_direct_tools_end_the_run_with_their_results() {
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Renders the final report.
            #[tool(name = "render_report", return_direct)]
            |title: String| format!("# {title}")
        ))
        .unwrap();
    let model = ScriptedModel::new([calls(&[("c1", "render_report", r#"{"title":"Q3"}"#)])]);
    let agent = ToolLoop::new(model, registry);
    let mut conversation = vec![Message::user("report")];
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::ReturnedDirect(results) = outcome.status else {
        panic!()
    };
    assert_eq!(results[0].content, "# Q3");
    assert_eq!(outcome.rounds, 1);
}

struct LateTools(AtomicUsize);

impl ToolProvider for LateTools {
    fn tools(&self) -> ProviderFuture<'_> {
        // The tool appears from the second round on.
        let round = self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            if round == 0 {
                return vec![];
            }
            let schema = serde_json::json!({"type": "object", "properties": {}});
            let tool = DynamicTool::new("late_tool", "Arrives late.", schema, |_| async { "late" })
                .unwrap();
            vec![Arc::new(tool) as Arc<dyn Tool>]
        })
    }
}

#[tokio::test]
async fn tool_providers_are_consulted_every_round() {
    let timeline = Timeline::default();
    let model = Arc::new(ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
        calls(&[("c2", "late_tool", "{}")]),
        answer("done"),
    ]));
    let agent = ToolLoop::new(
        SharedModel(Arc::clone(&model)),
        booking_tools(&timeline, &[]),
    )
    .with_provider(Arc::new(LateTools(AtomicUsize::new(0))));
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    let requests = model.requests();
    assert!(!requests[0].tools.contains(&"late_tool".to_owned()));
    assert!(requests[1].tools.contains(&"late_tool".to_owned()));
    let Message::Tool(late) = &conversation[4] else {
        panic!()
    };
    assert_eq!(late.content, "late");
}

/// What the application greets with: shared state of the loop's registry.
struct Greeting(&'static str);

/// Greets someone with the application's greeting.
#[tool_sdk::tool]
fn greet_by_state(#[context] greeting: tool_sdk::define::State<Greeting>, name: String) -> String {
    let Greeting(word) = &*greeting;
    format!("{word} {name}")
}

struct GreetingProvider;

impl ToolProvider for GreetingProvider {
    fn tools(&self) -> ProviderFuture<'_> {
        Box::pin(async { vec![Arc::new(GreetByStateTool) as Arc<dyn Tool>] })
    }
}

#[tokio::test]
async fn provided_tools_get_the_registry_state_and_argument_limit() {
    let mut registry = ToolRegistry::new().with_max_arguments_bytes(40);
    registry.insert_state(Greeting("Hello"));
    let long = format!(r#"{{"name":"{}"}}"#, "A".repeat(40));
    let model = ScriptedModel::new([
        calls(&[
            ("c1", "greet_by_state", r#"{"name":"Ada"}"#),
            ("c2", "greet_by_state", &long),
        ]),
        answer("done"),
    ]);
    let agent = ToolLoop::new(model, registry).with_provider(Arc::new(GreetingProvider));
    let mut conversation = vec![Message::user("greet")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    let results: Vec<&str> = conversation
        .iter()
        .filter_map(|m| match m {
            Message::Tool(result) => Some(result.content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results[0], "Hello Ada");
    assert!(results[1].contains("at most 40 bytes"), "{}", results[1]);
}

/// Offers a `greet_by_state` of its own (a name the loop has) and one that breaks the rule.
struct CollidingProvider;

impl ToolProvider for CollidingProvider {
    fn tools(&self) -> ProviderFuture<'_> {
        Box::pin(async {
            let schema = serde_json::json!({"type": "object", "properties": {}});
            let shadowed =
                DynamicTool::new("greet_by_state", "Another greeting.", schema, |_| async {
                    "remote"
                })
                .unwrap();
            vec![Arc::new(shadowed) as Arc<dyn Tool>]
        })
    }
}

#[tokio::test]
async fn a_provided_tool_shadowed_by_the_loops_own_is_reported_once() {
    let mut registry = ToolRegistry::new();
    registry.insert_state(Greeting("Hello"));
    registry.register(GreetByStateTool).unwrap();
    let model = ScriptedModel::new([
        calls(&[("c1", "greet_by_state", r#"{"name":"Ada"}"#)]),
        calls(&[("c2", "greet_by_state", r#"{"name":"Bo"}"#)]),
        answer("done"),
    ]);
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let agent = ToolLoop::new(model, registry)
        .with_provider(Arc::new(CollidingProvider))
        .with_observer(event_fn(move |event| {
            if let LoopEvent::ToolSkipped { name, reason } = event {
                seen.lock().unwrap().push((name.clone(), reason.clone()));
            }
        }));
    let mut conversation = vec![Message::user("greet")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    // The loop's own tool answered; the provider's was reported, once, with the way out.
    let Message::Tool(first) = &conversation[2] else {
        panic!()
    };
    assert_eq!(first.content, "Hello Ada");
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].0, "greet_by_state");
    assert!(events[0].1.contains("prefix"), "{}", events[0].1);
}

struct SharedModel(Arc<ScriptedModel>);

impl tool_sdk::ChatModel for SharedModel {
    fn chat<'a>(
        &'a self,
        request: tool_sdk::model::ChatRequest<'a>,
    ) -> tool_sdk::model::ModelFuture<'a> {
        self.0.chat(request)
    }
}

#[tokio::test]
async fn an_observer_words_what_the_model_reads_of_a_failure() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"ref":"F1"}"#)]),
        answer("ok"),
    ]);
    /// Words every failure, for the model.
    struct Wording;
    impl Observer for Wording {
        fn tool_error_message(&self, call: &ToolCall, error: &ToolError) -> Option<String> {
            let what = match error {
                ToolError::InvalidArguments { .. } => "invalid arguments",
                _ => "failed",
            };
            Some(format!("{} refused ({what}); check the schema", call.name))
        }
    }
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[])).with_observer(Wording);
    let mut conversation = vec![Message::user("go")];
    let _ = agent.run(&mut conversation).await;
    let Message::Tool(result) = &conversation[2] else {
        panic!()
    };
    assert_eq!(
        result.content,
        "book_flight refused (invalid arguments); check the schema"
    );
}

/// Forecasts the weather.
#[tool_sdk::tool]
fn forecast(city: String) -> tool_sdk::define::Json<serde_json::Value> {
    tool_sdk::define::Json(serde_json::json!({"city": city, "celsius": 21}))
}

#[tokio::test]
async fn tool_finished_events_carry_the_structured_output() {
    let mut registry = ToolRegistry::new();
    registry.register(ForecastTool).unwrap();
    let model = ScriptedModel::new([
        calls(&[("c1", "forecast", r#"{"city":"Porto"}"#)]),
        answer("done"),
    ]);
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let agent = ToolLoop::new(model, registry).with_observer(event_fn(move |event| {
        if let LoopEvent::ToolFinished { structured, .. } = event {
            seen.lock().unwrap().push(structured.clone());
        }
    }));
    let outcome = agent.run(&mut vec![Message::user("weather?")]).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(
        *events.lock().unwrap(),
        vec![Some(serde_json::json!({"city": "Porto", "celsius": 21}))]
    );
}
