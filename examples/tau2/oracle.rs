//! The oracle: a scripted model makes a task's golden actions through the loop, one call a
//! round, and a stand-in for the person allows every call the policy gates. What the database
//! holds afterwards is what τ²'s own replay must hold too (its hash, compared by the tests).
//!
//! Replayed with [`End::ModelFails`], the model fails after the last action instead of
//! answering: the loop rolls back every write that succeeded, newest first, and the database
//! must be exactly as it was before the task.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use tool_sdk::define::ToolErrorKind;
use tool_sdk::define::ToolResult;
use tool_sdk::describe::Dialect;
use tool_sdk::model::ToolResultStatus;
use tool_sdk::model::{ChatModel, ChatRequest, ModelFuture};
use tool_sdk::run::{
    CancellationToken, ErrorAction, ErrorPolicy, LoopOptions, LoopStatus, Observer, ToolLoop,
};
use tool_sdk::store::{PausedTurn, RunStore};
use tool_sdk::{AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};

use crate::data::Task;

/// How the scripted model ends a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// It answers, and the run ends with every change kept.
    Answers,
    /// It has no reply left after the last action: the run fails and is rolled back.
    ModelFails,
}

/// What the saga matrix does to one golden write (the action at this index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Nothing: every call is allowed and runs.
    None,
    /// The call after this write times out: the run fails and is rolled back.
    FailAfter(usize),
    /// The run is cancelled as this write ends: the loop drains, then rolls back.
    CancelAfter(usize),
    /// The person denies this write; the run goes on.
    Deny(usize),
}

/// A step that never answers, which the saga matrix calls after a write: its timeout is a
/// failure that rolls the run back.
#[tool_sdk::tool(timeout = "1ms")]
async fn stall() -> String {
    std::future::pending().await
}

/// Called after each call ends, with its result.
pub(crate) type AfterTool = Arc<dyn Fn(&ToolCall, &ToolResult) + Send + Sync>;

/// A replay whose run the loop keeps in a durable store, as a process that can be killed and
/// recovered from does.
pub(crate) struct Durable {
    /// Where the loop records the run.
    pub(crate) store: Arc<dyn RunStore>,
    /// Called after each call ends, with its result.
    pub(crate) after_tool: AfterTool,
}

/// Time spent in tool calls, from each call's start to its end as the loop reports them; calls
/// run one at a time here.
#[derive(Debug, Default)]
struct ToolClock {
    started: Mutex<Option<Instant>>,
    micros: AtomicU64,
}

impl ToolClock {
    fn start(&self) {
        if let Ok(mut started) = self.started.lock() {
            *started = Some(Instant::now());
        }
    }

    fn stop(&self) {
        let started = self.started.lock().ok().and_then(|mut s| s.take());
        if let Some(started) = started {
            let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            self.micros.fetch_add(micros, Ordering::Relaxed);
        }
    }

    fn micros(&self) -> u128 {
        self.micros.load(Ordering::Relaxed).into()
    }
}

/// What a replay watches of its run: the time in each call, the call after which the fault
/// cancels the run, and what the durable test does after each call.
struct Watch {
    clock: Arc<ToolClock>,
    cancel_after: Option<(CancellationToken, String)>,
    after_tool: Option<AfterTool>,
}

impl Observer for Watch {
    fn call_started(&self, _key: &str, _call: &ToolCall) {
        self.clock.start();
    }

    fn call_finished(&self, _key: &str, call: &ToolCall, result: &ToolResult) {
        self.clock.stop();
        if let Some((cancel, id)) = &self.cancel_after {
            if call.id.as_deref() == Some(id.as_str()) {
                cancel.cancel();
            }
        }
        if let Some(after_tool) = &self.after_tool {
            after_tool(call, result);
        }
    }
}

/// The scripted model, noting when the loop first asks it: what comes before is the run's
/// set-up (each task's loop is new, so it lowers the domain's tools for the model once).
struct Timed {
    model: ScriptedModel,
    first_request: Mutex<Option<Instant>>,
}

impl ChatModel for Timed {
    fn dialect(&self) -> Dialect {
        self.model.dialect()
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        if let Ok(mut first) = self.first_request.lock() {
            first.get_or_insert_with(Instant::now);
        }
        self.model.chat(request)
    }
}

/// What one task's replay did.
#[derive(Debug, Serialize)]
pub(crate) struct Replay {
    pub(crate) task: String,
    /// The loop's rounds (requests to the model).
    pub(crate) rounds: usize,
    /// How long the run took, and how much of it the tools' calls (from the loop's hook
    /// before a call to its hook after: arguments decoded, the tool run, its output encoded).
    pub(crate) run_micros: u128,
    pub(crate) tool_micros: u128,
    /// How much of the run came before its first request to the model.
    pub(crate) setup_micros: u128,
    /// Golden actions made.
    pub(crate) calls: usize,
    /// Calls that waited for the person's decision (the writes).
    pub(crate) asked: usize,
    /// Calls the tool refused, with its message (τ²'s would raise the same).
    pub(crate) failed: Vec<String>,
    /// Calls compensated when the run was rolled back.
    pub(crate) rolled_back: usize,
    /// Compensations that failed, with their error.
    pub(crate) compensation_errors: Vec<String>,
    /// Calls a person denied.
    pub(crate) denied: usize,
}

/// The loop a domain's tasks run through: a tool's refusal goes back to the model, as τ²'s
/// environment answers `Error: ...`, rather than failing the run.
pub(crate) fn options(rounds: usize) -> LoopOptions {
    LoopOptions::new().with_max_rounds(rounds).with_errors(
        ErrorPolicy::new().with_action(ToolErrorKind::ExecutionFailed, ErrorAction::ToModel),
    )
}

/// Replays `task`'s golden actions over the tools of `registry`, ending as `end` says, with
/// `fault` done to one of its writes; the run kept in memory, or as `durable` says.
pub(crate) async fn replay(
    task: &Task,
    mut registry: ToolRegistry,
    end: End,
    fault: Fault,
    durable: Option<Durable>,
) -> Result<Replay, String> {
    if task
        .initial_state
        .as_ref()
        .is_some_and(|state| !state.is_null())
    {
        return Err(format!(
            "task {}: an initial state is not supported",
            task.id
        ));
    }
    let actions = task.actions();
    let call_id = |index: usize| format!("call_{}", index + 1);
    let mut replies = Vec::with_capacity(actions.len() + 2);
    for (index, action) in actions.iter().enumerate() {
        if action
            .requestor
            .as_deref()
            .is_some_and(|r| r != "assistant")
        {
            return Err(format!(
                "task {}: a call by the user is not supported",
                task.id
            ));
        }
        let arguments = serde_json::to_string(&action.arguments).map_err(|e| e.to_string())?;
        replies.push(AssistantMessage::with_tool_calls(vec![ToolCall::new(
            call_id(index),
            &action.name,
            arguments,
        )]));
        if fault == Fault::FailAfter(index) {
            replies.push(AssistantMessage::with_tool_calls(vec![ToolCall::new(
                "call_stall",
                "stall",
                "{}",
            )]));
            registry.register(StallTool).map_err(|e| e.to_string())?;
            break;
        }
    }
    if end == End::Answers && !matches!(fault, Fault::FailAfter(_)) {
        replies.push(AssistantMessage::text("Done."));
    }

    let asked = Arc::new(AtomicUsize::new(0));
    let denied = match fault {
        Fault::Deny(index) => Some(call_id(index)),
        _ => None,
    };
    let approver = {
        let asked = Arc::clone(&asked);
        // The person says yes to every call (the oracle's actions are the task's solution),
        // but to the one the fault denies.
        move |paused: &PausedTurn| {
            asked.fetch_add(paused.awaiting().len(), Ordering::Relaxed);
            let mut decide = paused.decide();
            for pending in paused.calls() {
                decide = match &denied {
                    Some(id) if pending.call.id.as_deref() == Some(id.as_str()) => {
                        decide.deny(&pending.key, "The person does not want this change.")
                    }
                    _ => decide.allow(&pending.key),
                };
            }
            decide.build()
        }
    };
    let cancel = CancellationToken::new();
    let model = Arc::new(Timed {
        model: ScriptedModel::new(replies),
        first_request: Mutex::new(None),
    });
    let mut agent = ToolLoop::new(Arc::clone(&model), registry)
        .with_options(options(actions.len() + 2))
        .with_approver(approver);
    let clock = Arc::new(ToolClock::default());
    let cancel_after = match fault {
        Fault::CancelAfter(index) => Some((cancel.clone(), call_id(index))),
        _ => None,
    };
    let after_tool = match durable {
        Some(Durable { store, after_tool }) => {
            agent = agent.with_store(store);
            Some(after_tool)
        }
        None => None,
    };
    agent = agent.with_observer(Watch {
        clock: Arc::clone(&clock),
        cancel_after,
        after_tool,
    });
    let mut conversation = vec![Message::user(format!("Task {}.", task.id))];
    let run_started = Instant::now();
    let outcome = agent.run(&mut conversation).with_cancel(&cancel).await;
    let run_time = run_started.elapsed();
    let expected = match (fault, end) {
        (Fault::FailAfter(_), _) => matches!(outcome.status, LoopStatus::RolledBack { .. }),
        (Fault::CancelAfter(_), _) => matches!(outcome.status, LoopStatus::Cancelled),
        (_, End::Answers) => matches!(outcome.status, LoopStatus::Answered(_)),
        (_, End::ModelFails) => matches!(outcome.status, LoopStatus::ModelFailed(_)),
    };
    if !expected {
        return Err(format!(
            "task {}: the run ended {:?}",
            task.id, outcome.status
        ));
    }
    let results = || {
        conversation.iter().filter_map(|message| match message {
            Message::Tool(result) => Some(result),
            _ => None,
        })
    };
    let failed = results()
        .filter(|result| result.status == ToolResultStatus::Error && result.name != "stall")
        .map(|result| format!("{}: {}", result.name, result.content))
        .collect();
    Ok(Replay {
        task: task.id.clone(),
        rounds: outcome.rounds,
        run_micros: run_time.as_micros(),
        tool_micros: clock.micros(),
        setup_micros: model
            .first_request
            .lock()
            .ok()
            .and_then(|first| *first)
            .map_or(0, |first| first.duration_since(run_started).as_micros()),
        calls: outcome.calls.len(),
        asked: asked.load(Ordering::Relaxed),
        failed,
        rolled_back: outcome.compensations.len(),
        compensation_errors: outcome
            .compensations
            .iter()
            .filter_map(|report| {
                let error = report.result.as_ref().err()?;
                Some(format!("{}: {error}", report.name))
            })
            .collect(),
        denied: results()
            .filter(|result| result.status == ToolResultStatus::Denied)
            .count(),
    })
}
