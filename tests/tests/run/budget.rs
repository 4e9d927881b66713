//! Budgets: each limit (tokens read, written and in all, tool calls, wall time, the
//! application's cost) ends the run with its own status, the conversation valid, the work done
//! kept, and the usage the model reported summed in the outcome and told to the observers.

use std::future::IntoFuture as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::model::{check_conversation, ToolResultStatus, Usage};
use tool_sdk::run::{event_fn, Budget, BudgetLimit, LoopEvent, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{define_tool, AssistantMessage, Message, ScriptedModel, ToolRegistry};
use tool_sdk_tests::booking::{booking_tools, Timeline};
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

/// A run of [`three_bookings`] by a model reporting `usage` per request, under `budget`: its
/// outcome, conversation, timeline and events.
async fn run_under(
    budget: Budget,
    usage: Usage,
) -> (
    tool_sdk::run::LoopOutcome,
    Vec<Message>,
    Vec<String>,
    Vec<LoopEvent>,
) {
    let timeline = Timeline::default();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let model = ScriptedModel::new(three_bookings()).with_usage(usage);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]))
        .with_options(LoopOptions::new().with_budget(budget))
        .with_observer(event_fn(move |event: &LoopEvent| {
            seen.lock().unwrap().push(event.clone());
        }));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let timeline = timeline.lock().unwrap().clone();
    let events = events.lock().unwrap().clone();
    (outcome, conversation, timeline, events)
}

#[tokio::test]
async fn each_token_limit_stops_the_run_before_the_request_past_it() {
    // 100 tokens read and 20 written per request: after two requests, 200 + 40.
    let per_request = Usage::new(100, 20);
    let cases = [
        (
            Budget::new().with_input_tokens(200),
            BudgetLimit::InputTokens {
                used: 200,
                limit: 200,
            },
        ),
        (
            Budget::new().with_output_tokens(40),
            BudgetLimit::OutputTokens {
                used: 40,
                limit: 40,
            },
        ),
        (
            Budget::new().with_total_tokens(230),
            BudgetLimit::TotalTokens {
                used: 240,
                limit: 230,
            },
        ),
    ];
    for (budget, expected) in cases {
        let (outcome, conversation, timeline, events) = run_under(budget, per_request).await;
        match &outcome.status {
            LoopStatus::BudgetExhausted(limit) => assert_eq!(*limit, expected),
            other => panic!("{other:?}"),
        }
        assert_eq!(outcome.rounds, 2, "{expected:?}");
        assert_eq!(outcome.usage, Usage::new(200, 40));
        // The work done is kept: nothing is rolled back, as at the round limit.
        assert_eq!(timeline, ["book F1", "book H1"]);
        assert!(outcome.compensations.is_empty());
        check_conversation(&conversation).unwrap();
        assert_eq!(conversation.len(), 5);
        let used: Vec<_> = events
            .iter()
            .filter_map(|event| match event {
                LoopEvent::ModelUsage { round, usage } => Some((*round, *usage)),
                _ => None,
            })
            .collect();
        assert_eq!(used, [(1, per_request), (2, per_request)]);
        assert_eq!(
            events.last(),
            Some(&LoopEvent::BudgetExhausted { limit: expected })
        );
    }
}

#[tokio::test]
async fn a_run_within_its_budget_answers_with_its_usage() {
    let budget = Budget::new()
        .with_total_tokens(1_000)
        .with_tool_calls(3)
        .with_wall_time(Duration::from_secs(60))
        .with_cost(1.0, |usage| usage.total() as f64 / 1e6);
    let (outcome, conversation, timeline, events) = run_under(budget, Usage::new(7, 3)).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(outcome.usage, Usage::new(28, 12));
    assert_eq!(timeline.len(), 3);
    check_conversation(&conversation).unwrap();
    assert!(!events
        .iter()
        .any(|event| matches!(event, LoopEvent::BudgetExhausted { .. })));
}

#[tokio::test]
async fn the_application_s_cost_stops_the_run() {
    // A dollar per thousand tokens read, three per thousand written; at most 25 cents.
    let price =
        |usage: &Usage| (usage.input_tokens as f64 + 3.0 * usage.output_tokens as f64) / 1_000.0;
    let budget = Budget::new().with_cost(0.25, price);
    // 100 read and 10 written cost 0.13 a request: 0.26 after two.
    let (outcome, conversation, timeline, _) = run_under(budget, Usage::new(100, 10)).await;
    let LoopStatus::BudgetExhausted(BudgetLimit::Cost { used, limit }) = outcome.status else {
        panic!("{:?}", outcome.status)
    };
    assert!((used - 0.26).abs() < 1e-9, "{used}");
    assert_eq!(limit, 0.25);
    assert_eq!(outcome.rounds, 2);
    assert_eq!(timeline.len(), 2);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn a_reply_past_the_call_limit_runs_none_of_its_calls() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
        calls(&[
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
            ("c3", "book_car", r#"{"reference":"C1"}"#),
        ]),
        answer("All booked."),
    ])
    // A streaming model would start each call as it arrives: with a call limit, it does not
    // stream, so no call of the reply starts before all are counted.
    .with_stream_gap(Duration::from_millis(1));
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]))
        .with_options(LoopOptions::new().with_budget(Budget::new().with_tool_calls(2)));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    match &outcome.status {
        LoopStatus::BudgetExhausted(limit) => {
            assert_eq!(*limit, BudgetLimit::ToolCalls { used: 3, limit: 2 });
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(*timeline.lock().unwrap(), ["book F1"]);
    // Every call of the last reply is answered, none as run.
    check_conversation(&conversation).unwrap();
    assert_eq!(conversation.len(), 6);
    for message in &conversation[4..] {
        let Message::Tool(result) = message else {
            panic!("{message:?}")
        };
        assert_eq!(result.status, ToolResultStatus::Error);
        assert!(result.content.contains("budget"), "{}", result.content);
    }
    let started: Vec<bool> = outcome.calls.iter().map(|call| call.started).collect();
    assert_eq!(started, [true, false, false]);
    assert!(outcome.compensations.is_empty());
}

#[tokio::test]
async fn wall_time_stops_the_run_once_it_has_passed() {
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Takes its time.
            #[tool(name = "slow")]
            async |reference: String| -> String {
                tokio::time::sleep(Duration::from_millis(80)).await;
                reference
            }
        ))
        .unwrap();
    let model = ScriptedModel::new([
        calls(&[("c1", "slow", r#"{"reference":"a"}"#)]),
        calls(&[("c2", "slow", r#"{"reference":"b"}"#)]),
        answer("done"),
    ]);
    let limit = Duration::from_millis(40);
    let agent = ToolLoop::new(model, registry)
        .with_options(LoopOptions::new().with_budget(Budget::new().with_wall_time(limit)));
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    match &outcome.status {
        LoopStatus::BudgetExhausted(BudgetLimit::WallTime { used, limit: given }) => {
            assert_eq!(*given, limit);
            assert!(*used >= Duration::from_millis(80), "{used:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.rounds, 1);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn usage_is_kept_across_a_pause_and_counts_after_the_resume() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new(three_bookings()).with_usage(Usage::new(100, 20));
    let gate = Gate::new(ConfirmationPolicy::new().with_confirmed_tool("book_hotel"));
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]))
        .with_gate(gate)
        .with_options(LoopOptions::new().with_budget(Budget::new().with_total_tokens(300)));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(outcome.usage, Usage::new(200, 40));
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!("{:?}", outcome.status)
    };
    let decisions = paused.decide().allow_rest().build();
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    // The hotel runs, as decided, and the third request is made (240 tokens of 300): the fourth
    // is not. Counted from the resume alone, the run would have answered.
    match &outcome.status {
        LoopStatus::BudgetExhausted(limit) => assert_eq!(
            *limit,
            BudgetLimit::TotalTokens {
                used: 360,
                limit: 300
            }
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.usage, Usage::new(300, 60));
    assert_eq!(*timeline.lock().unwrap(), ["book F1", "book H1", "book C1"]);
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn a_streamed_reply_s_usage_is_counted() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new(three_bookings())
        .with_usage(Usage::new(50, 5))
        .with_stream_gap(Duration::from_millis(1));
    let agent = ToolLoop::new(model, booking_tools(&timeline, &[]))
        .with_options(LoopOptions::new().with_budget(Budget::new().with_total_tokens(110)));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    match &outcome.status {
        LoopStatus::BudgetExhausted(limit) => assert_eq!(
            *limit,
            BudgetLimit::TotalTokens {
                used: 110,
                limit: 110
            }
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.usage, Usage::new(100, 10));
    check_conversation(&conversation).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the replies and the call limit, no more calls run than the limit allows, a
    /// reply's calls run all or none, and the conversation stays valid.
    #[test]
    fn no_run_goes_past_its_call_limit(
        replies in prop::collection::vec(1..5_usize, 1..6),
        limit in 0..12_usize,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ran = Arc::new(Mutex::new(0_usize));
        let counter = Arc::clone(&ran);
        let mut registry = ToolRegistry::new();
        registry.register(define_tool!(
            /// Counts.
            #[tool(name = "count")]
            move |n: usize| -> usize {
                *counter.lock().unwrap() += 1;
                n
            }
        )).unwrap();
        let mut script: Vec<AssistantMessage> = replies
            .iter()
            .enumerate()
            .map(|(round, &n)| {
                let ids: Vec<String> = (0..n).map(|i| format!("r{round}c{i}")).collect();
                let made: Vec<(&str, &str, &str)> =
                    ids.iter().map(|id| (id.as_str(), "count", r#"{"n":1}"#)).collect();
                calls(&made)
            })
            .collect();
        script.push(answer("done"));
        let agent = ToolLoop::new(ScriptedModel::new(script), registry)
            .with_options(LoopOptions::new().with_budget(Budget::new().with_tool_calls(limit)));
        let mut conversation = vec![Message::user("go")];
        let outcome = runtime.block_on(agent.run(&mut conversation).into_future());
        let ran = *ran.lock().unwrap();
        // The calls of the replies that fit, whole.
        let mut fits = 0;
        for &n in &replies {
            if fits + n > limit {
                break;
            }
            fits += n;
        }
        prop_assert_eq!(ran, fits);
        prop_assert!(check_conversation(&conversation).is_ok());
        let all: usize = replies.iter().sum();
        if all <= limit {
            prop_assert!(matches!(outcome.status, LoopStatus::Answered(_)), "{:?}", outcome.status);
        } else {
            let is_calls = matches!(outcome.status, LoopStatus::BudgetExhausted(BudgetLimit::ToolCalls { limit: l, .. }) if l == limit);
            prop_assert!(is_calls, "{:?}", outcome.status);
        }
    }
}
