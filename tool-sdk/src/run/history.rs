//! A resumed run written into its store's history of decisions: running once taken from its
//! pause, then how it ended.

use std::time::SystemTime;

use crate::compensate::CompensationReport;
use crate::model::Message;
use crate::run::{LoopOutcome, LoopStatus};
use crate::store::{DecidedRun, PausedTurn, RolledBack, RunEnded, RunStore};

/// The history's record of `taken`, just taken from its pause to go on with `conversation`.
pub(super) fn running(taken: &PausedTurn, conversation: &[Message]) -> DecidedRun {
    let asked = conversation.iter().rev().find_map(|message| match message {
        Message::User { content } => Some(content.clone()),
        _ => None,
    });
    let decisions = taken
        .decisions()
        .iter()
        .filter(|record| &record.pause == taken.pause())
        .cloned()
        .collect();
    DecidedRun::running(
        taken.id().clone(),
        taken.pause().clone(),
        asked,
        decisions,
        SystemTime::now(),
    )
}

/// How `outcome` ended, as the history keeps it.
pub(super) fn ended(outcome: &LoopOutcome) -> RunEnded {
    let (how, answer) = match &outcome.status {
        LoopStatus::Answered(reply) => ("answered".to_owned(), reply.text.clone()),
        LoopStatus::ReturnedDirect(results) => (
            "answered by the tools".to_owned(),
            Some(
                results
                    .iter()
                    .map(|result| result.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        ),
        LoopStatus::Paused(_) => ("paused again".to_owned(), None),
        LoopStatus::RolledBack { name, error, .. } => {
            (format!("rolled back: `{name}` failed: {error}"), None)
        }
        LoopStatus::Cancelled => ("cancelled".to_owned(), None),
        LoopStatus::MaxRoundsReached => ("stopped at its round limit".to_owned(), None),
        LoopStatus::BudgetExhausted(limit) => {
            (format!("stopped: its budget is spent: {limit}"), None)
        }
        LoopStatus::ModelFailed(error) => (format!("stopped: the model failed: {error}"), None),
        LoopStatus::StoreFailed => ("stopped: its store failed".to_owned(), None),
        other => (format!("stopped: {other:?}"), None),
    };
    let rollbacks = outcome.compensations.iter().map(rolled_back).collect();
    RunEnded::new(
        SystemTime::now(),
        how,
        answer,
        outcome.calls.clone(),
        rollbacks,
    )
}

/// A rollback, as the history keeps it and the approval page shows it.
pub(crate) fn rolled_back(report: &CompensationReport) -> RolledBack {
    RolledBack::new(
        report.key.clone(),
        report.name.clone(),
        report.result.as_ref().err().map(ToString::to_string),
    )
}

/// Keeps `decided` in `store`'s history; a store that fails to is logged, and the run goes on:
/// the history is for people to read, and the run's own state is kept apart.
pub(super) async fn keep(store: &dyn RunStore, decided: &DecidedRun) {
    if let Err(error) = store.keep_decided(decided).await {
        tracing::warn!(run = %decided.run, %error, "the history of decisions could not be written");
    }
}
