//! Rollback in the loop: when a run fails, times out or is cancelled, each successful
//! compensable call is compensated once, newest first; a compensation that fails or panics is
//! reported and the rest still run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tool_sdk::run::CancellationToken;
use tool_sdk::run::{event_fn, Concurrency, LoopEvent, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{
    define::ToolError,
    define_tool,
    model::{check_conversation, ToolResultStatus},
    AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry,
};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::replies::{answer, calls};

#[tokio::test]
async fn a_failure_rolls_back_every_earlier_success_newest_first_once() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "book_flight", r#"{"reference":"F1"}"#)]),
        calls(&[
            ("c2", "book_hotel", r#"{"reference":"H1"}"#),
            ("c3", "book_car", r#"{"reference":"C1"}"#),
        ]),
        answer("unreachable"),
    ]);
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let agent = ToolLoop::new(model, booking_tools(&timeline, &["car"])).with_observer(event_fn(
        move |event| seen.lock().unwrap().push(event.clone()),
    ));
    let mut conversation = vec![Message::user("Book my trip")];
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::RolledBack { name, error, .. } = &outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert_eq!(name, "book_car");
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert_eq!(
        *timeline.lock().unwrap(),
        [
            "book F1",
            "book H1",
            "fail C1",
            "cancel B-H1 (H1)",
            "cancel B-F1 (F1)"
        ]
    );
    assert_eq!(
        outcome
            .compensations
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["book_hotel", "book_flight"]
    );
    assert!(outcome.compensations.iter().all(|c| c.result.is_ok()));
    let compensated = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, LoopEvent::Compensated { .. }))
        .count();
    assert_eq!(compensated, 2, "one event per compensation");

    // The model sees each rolled-back call as rolled back, and why.
    check_conversation(&conversation).unwrap();
    let rolled_back: Vec<_> = conversation
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) if r.status == ToolResultStatus::RolledBack => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(rolled_back.len(), 2);
    assert!(rolled_back
        .iter()
        .all(|r| r.content.contains("rolled back") && r.content.contains("book_car")));
    // The outcome's calls say the same as the model was told.
    let ended: Vec<_> = outcome
        .calls
        .iter()
        .map(|call| (call.key.as_str(), call.status))
        .collect();
    assert_eq!(
        ended,
        [
            ("c1", ToolResultStatus::RolledBack),
            ("c2", ToolResultStatus::RolledBack),
            ("c3", ToolResultStatus::Error),
        ]
    );
}

#[tokio::test]
async fn a_failing_or_panicking_compensation_is_reported_and_the_rest_still_run() {
    let timeline = Timeline::default();
    let mut registry = booking_tools(&timeline, &["car"]);
    registry
        .register(define_tool!(
            /// Books a seat whose cancellation fails.
            #[tool(name = "book_seat", compensate = |_args, _b: String| -> Result<(), String> { Err("the airline's system is down".into()) })]
            |r: String| format!("S-{r}")
        ))
        .unwrap();
    registry
        .register(define_tool!(
            /// Books a meal whose cancellation panics.
            #[tool(name = "book_meal", compensate = |_args, _b: String| -> Result<(), String> { panic!("bug in cancel") })]
            |r: String| format!("M-{r}")
        ))
        .unwrap();
    let model = ScriptedModel::new([calls(&[
        ("1", "book_flight", r#"{"reference":"F"}"#),
        ("2", "book_seat", r#"{"r":"S"}"#),
        ("3", "book_meal", r#"{"r":"M"}"#),
        ("4", "book_car", r#"{"reference":"C"}"#),
    ])]);
    let agent = ToolLoop::new(model, registry);
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    let results: Vec<_> = outcome
        .compensations
        .iter()
        .map(|c| (c.name.as_str(), c.result.is_ok()))
        .collect();
    assert_eq!(
        results,
        [
            ("book_meal", false),
            ("book_seat", false),
            ("book_flight", true)
        ]
    );
    assert!(
        matches!(
            outcome.compensations[0].result,
            Err(ToolError::Panicked { .. })
        ),
        "{:?}",
        outcome.compensations[0].result
    );
    assert!(timeline
        .lock()
        .unwrap()
        .contains(&"cancel B-F (F)".to_owned()));
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn a_tool_that_never_returns_is_stopped_by_its_timeout_and_rolled_back_after() {
    let undone = Arc::new(AtomicUsize::new(0));
    let undo = Arc::clone(&undone);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Holds a room.
            #[tool(name = "hold", compensate = move |_args, _h: String| { undo.fetch_add(1, Ordering::SeqCst); })]
            |r: String| format!("H-{r}")
        ))
        .unwrap();
    registry
        .register(define_tool!(
            /// Never answers.
            #[tool(name = "hang", timeout = "50ms")]
            async move || -> String { std::future::pending::<String>().await }
        ))
        .unwrap();
    let model = ScriptedModel::new([AssistantMessage::with_tool_calls(vec![
        ToolCall::new("1", "hold", r#"{"r":"a"}"#),
        ToolCall::new("2", "hang", "{}"),
    ])]);
    let outcome = ToolLoop::new(model, registry)
        .run(&mut vec![Message::user("go")])
        .await;
    assert!(matches!(
        &outcome.status,
        LoopStatus::RolledBack {
            error: ToolError::TimedOut { .. },
            ..
        }
    ));
    assert_eq!(undone.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn cancellation_at_every_step_of_a_round_loses_no_compensation() {
    const CALLS: usize = 6;
    for cancel_at in 0..CALLS {
        for concurrency in [Concurrency::Sequential, Concurrency::Bounded(3)] {
            let log = Arc::new(Mutex::new((Vec::<usize>::new(), Vec::<usize>::new())));
            let cancel = CancellationToken::new();
            let (run_log, undo_log, trigger) = (Arc::clone(&log), Arc::clone(&log), cancel.clone());
            let mut registry = ToolRegistry::new();
            registry
                .register(define_tool!(
                    /// A step of the round.
                    #[tool(name = "step", compensate = move |args, _out: usize| { undo_log.lock().unwrap().1.push(args.n); })]
                    move |n: usize| {
                        run_log.lock().unwrap().0.push(n);
                        if n == cancel_at {
                            trigger.cancel();
                        }
                        n
                    }
                ))
                .unwrap();
            let calls = (0..CALLS)
                .map(|n| ToolCall::new(format!("c{n}"), "step", format!(r#"{{"n":{n}}}"#)))
                .collect();
            let model = ScriptedModel::new([AssistantMessage::with_tool_calls(calls)]);
            let agent = ToolLoop::new(model, registry)
                .with_options(LoopOptions::default().with_concurrency(concurrency));
            let mut conversation = vec![Message::user("go")];
            let outcome = agent.run(&mut conversation).with_cancel(&cancel).await;
            assert!(
                matches!(outcome.status, LoopStatus::Cancelled),
                "{cancel_at} {concurrency:?}"
            );
            check_conversation(&conversation).unwrap();
            let (ran, undone) = log.lock().unwrap().clone();
            let mut expected = ran.clone();
            expected.reverse();
            assert_eq!(
                undone, expected,
                "every step that ran is undone once, newest first"
            );
            if concurrency == Concurrency::Sequential {
                assert_eq!(
                    ran.len(),
                    cancel_at + 1,
                    "nothing starts after the cancelling step"
                );
            }
        }
    }
}
