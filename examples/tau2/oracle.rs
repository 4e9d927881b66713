//! The oracle: a scripted model makes a task's golden actions through the loop, one call a
//! round, and a stand-in for the person allows every call the policy gates. What the database
//! holds afterwards is what τ²'s own replay must hold too (its hash, compared by the tests).
//!
//! Replayed with [`End::ModelFails`], the model fails after the last action instead of
//! answering: the loop rolls back every write that succeeded, newest first, and the database
//! must be exactly as it was before the task.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::Serialize;
use tool_sdk::define::ToolErrorKind;
use tool_sdk::model::ToolResultStatus;
use tool_sdk::run::{ErrorAction, ErrorPolicy, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::store::PausedTurn;
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

/// What one task's replay did.
#[derive(Debug, Serialize)]
pub(crate) struct Replay {
    pub(crate) task: String,
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
}

/// The loop a domain's tasks run through: a tool's refusal goes back to the model, as τ²'s
/// environment answers `Error: ...`, rather than failing the run.
pub(crate) fn options(rounds: usize) -> LoopOptions {
    LoopOptions::new().with_max_rounds(rounds).with_errors(
        ErrorPolicy::new().with_action(ToolErrorKind::ExecutionFailed, ErrorAction::ToModel),
    )
}

/// Replays `task`'s golden actions over the tools of `registry`, ending as `end` says.
pub(crate) async fn replay(
    task: &Task,
    registry: ToolRegistry,
    end: End,
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
    let mut replies = Vec::with_capacity(actions.len() + 1);
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
            format!("call_{}", index + 1),
            &action.name,
            arguments,
        )]));
    }
    if end == End::Answers {
        replies.push(AssistantMessage::text("Done."));
    }

    let asked = Arc::new(AtomicUsize::new(0));
    let approver = {
        let asked = Arc::clone(&asked);
        // The person says yes to every call: the oracle's actions are the task's solution.
        move |paused: &PausedTurn| {
            asked.fetch_add(paused.awaiting().len(), Ordering::Relaxed);
            paused.decide().allow_rest().build()
        }
    };
    let agent = ToolLoop::new(ScriptedModel::new(replies), registry)
        .with_options(options(actions.len() + 1))
        .with_approver(approver);
    let mut conversation = vec![Message::user(format!("Task {}.", task.id))];
    let outcome = agent.run(&mut conversation).await;
    let expected = match end {
        End::Answers => matches!(outcome.status, LoopStatus::Answered(_)),
        End::ModelFails => matches!(outcome.status, LoopStatus::ModelFailed(_)),
    };
    if !expected {
        return Err(format!(
            "task {}: the run ended {:?}",
            task.id, outcome.status
        ));
    }
    let failed = conversation
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) if result.status == ToolResultStatus::Error => {
                Some(format!("{}: {}", result.name, result.content))
            }
            _ => None,
        })
        .collect();
    Ok(Replay {
        task: task.id.clone(),
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
    })
}
