//! Property tests of the loop over random scenarios: rounds × calls × which fail × where
//! cancellation lands × concurrency on or off × streamed or not.

use std::future::IntoFuture as _;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use tool_sdk::run::CancellationToken;
use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{
    define_tool, model::check_conversation, AssistantMessage, Message, ScriptedModel, ToolCall,
    ToolRegistry,
};

#[derive(Debug, Clone)]
struct Step {
    compensable: bool,
    fails: bool,
    cancels: bool,
}

fn step() -> impl Strategy<Value = Step> {
    (
        any::<bool>(),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.08),
    )
        .prop_map(|(compensable, fails, cancels)| Step {
            compensable,
            fails,
            cancels,
        })
}

fn scenario() -> impl Strategy<Value = (Vec<Vec<Step>>, bool, bool)> {
    (
        prop::collection::vec(prop::collection::vec(step(), 1..5), 1..5),
        any::<bool>(),
        any::<bool>(),
    )
}

#[derive(Default)]
struct Log {
    runs: Vec<String>,
    undos: Vec<String>,
    /// Successes of compensable calls, in the order they happened.
    compensable_successes: Vec<String>,
    cancelled_at: Option<usize>,
}

fn registry(log: &Arc<Mutex<Log>>, cancel: &CancellationToken) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let (run_log, undo_log, trigger) = (Arc::clone(log), Arc::clone(log), cancel.clone());
    registry
        .register(define_tool!(
            /// A step that can be rolled back.
            #[tool(name = "undoable", compensate = move |_args, done: String| {
                undo_log.lock().unwrap().undos.push(done);
            })]
            move |id: String, fails: bool, cancels: bool| -> Result<String, String> {
                let mut log = run_log.lock().unwrap();
                log.runs.push(id.clone());
                if cancels {
                    log.cancelled_at = Some(log.runs.len());
                    trigger.cancel();
                }
                if fails {
                    return Err(format!("{id} failed"));
                }
                log.compensable_successes.push(id.clone());
                Ok(id)
            }
        ))
        .unwrap();
    let (run_log, trigger) = (Arc::clone(log), cancel.clone());
    registry
        .register(define_tool!(
            /// A step with nothing to roll back.
            #[tool(name = "plain")]
            move |id: String, fails: bool, cancels: bool| -> Result<String, String> {
                let mut log = run_log.lock().unwrap();
                log.runs.push(id.clone());
                if cancels {
                    log.cancelled_at = Some(log.runs.len());
                    trigger.cancel();
                }
                if fails {
                    return Err(format!("{id} failed"));
                }
                Ok(id)
            }
        ))
        .unwrap();
    registry
}

fn replies(rounds: &[Vec<Step>]) -> Vec<AssistantMessage> {
    let mut replies: Vec<AssistantMessage> = rounds
        .iter()
        .enumerate()
        .map(|(r, steps)| {
            AssistantMessage::with_tool_calls(
                steps
                    .iter()
                    .enumerate()
                    .map(|(c, step)| {
                        let id = format!("r{r}c{c}");
                        let name = if step.compensable { "undoable" } else { "plain" };
                        let arguments = serde_json::json!({"id": id, "fails": step.fails, "cancels": step.cancels});
                        ToolCall::new(id, name, arguments.to_string())
                    })
                    .collect(),
            )
        })
        .collect();
    replies.push(AssistantMessage {
        text: Some("done".into()),
        tool_calls: vec![],
    });
    replies
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_loop_keeps_its_promises((rounds, concurrent, streamed) in scenario()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let log = Arc::new(Mutex::new(Log::default()));
        let cancel = CancellationToken::new();
        let options = LoopOptions::default()
            .with_max_rounds(10)
            .with_concurrency(if concurrent { Concurrency::Bounded(3) } else { Concurrency::Sequential });
        let mut model = ScriptedModel::new(replies(&rounds));
        if streamed {
            model = model.with_stream_gap(std::time::Duration::ZERO);
        }
        let agent = ToolLoop::new(model, registry(&log, &cancel)).with_options(options);
        let mut conversation = vec![Message::user("go")];
        let outcome = runtime.block_on(agent.run(&mut conversation).with_cancel(&cancel).into_future());
        let log = log.lock().unwrap();

        // Memory is valid for a provider: every call answered once, in call order.
        prop_assert!(check_conversation(&conversation).is_ok(), "{:?}", check_conversation(&conversation));

        // No call runs twice.
        let mut runs = log.runs.clone();
        runs.sort();
        runs.dedup();
        prop_assert_eq!(runs.len(), log.runs.len());

        match &outcome.status {
            LoopStatus::RolledBack { .. } | LoopStatus::Cancelled => {
                // Every compensable success is compensated exactly once, newest first.
                let mut expected = log.compensable_successes.clone();
                expected.reverse();
                prop_assert_eq!(&log.undos, &expected);
                prop_assert!(outcome.compensations.iter().all(|c| c.result.is_ok()));
            }
            LoopStatus::Answered(_) => prop_assert!(log.undos.is_empty()),
            other => prop_assert!(false, "unexpected status {:?}", other),
        }

        if let Some(at) = log.cancelled_at {
            let stopped = matches!(outcome.status, LoopStatus::Cancelled | LoopStatus::RolledBack { .. });
            prop_assert!(stopped, "cancelled at {}, yet {:?}", at, outcome.status);
            if !concurrent {
                // Sequentially, nothing starts after the call that cancelled.
                prop_assert_eq!(log.runs.len(), at);
            }
            // No model call after the round that cancelled.
            let cancel_round = log.runs[at - 1][1..].split('c').next().unwrap().parse::<usize>().unwrap() + 1;
            prop_assert_eq!(outcome.rounds, cancel_round);
        }
    }
}
