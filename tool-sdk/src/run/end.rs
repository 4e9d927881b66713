//! How a run ends: what is compensable rolled back when it did not end well, its end
//! recorded, and the outcome built.

use std::time::Duration;

use crate::compensate::{Held, Rollback};
use crate::model::{Message, ToolResultMessage, ToolResultStatus};
use crate::run::observe::Observer as _;
use crate::run::tools::RunTools;
use crate::run::{durable, LoopOutcome, LoopStatus, ToolLoop};
use crate::store::{Heartbeat, RunState, StoreError};

impl ToolLoop {
    /// Rolls back what is compensable when the run did not end well, records the run's end,
    /// and builds the outcome.
    ///
    /// A run taken over by another owner rolls back only what that owner cannot know of: the
    /// successes the store refused to record. The rest is the new owner's.
    ///
    /// Not an `async fn`, for the reason given on `drive`.
    #[allow(clippy::manual_async_fn)]
    pub(super) fn end_run<'a>(
        &'a self,
        conversation: &'a mut Vec<Message>,
        mut state: RunState,
        tools: &'a RunTools<'a>,
        status: LoopStatus,
        heartbeat: Heartbeat,
    ) -> impl std::future::Future<Output = LoopOutcome> + 'a {
        async move {
            let taken_over = matches!(status, LoopStatus::StoreFailed)
                && matches!(state.store_error.as_deref(), Some(StoreError::Lost(_)));
            let reason = match &status {
                LoopStatus::Cancelled => Some("the run was cancelled".to_owned()),
                LoopStatus::RolledBack { name, error, .. } => Some(format!(
                    "a later step failed: `{name}`: {}",
                    error.model_message()
                )),
                LoopStatus::ModelFailed(error) => Some(format!("the model failed: {error}")),
                LoopStatus::DescribeFailed(error) => {
                    Some(format!("a tool cannot be offered to the model: {error}"))
                }
                LoopStatus::StoreFailed if taken_over => {
                    Some("the run was taken over by another process".to_owned())
                }
                LoopStatus::StoreFailed => Some(match &state.store_error {
                    Some(error) => format!("the run's store failed: {error}"),
                    None => "the run's store failed".to_owned(),
                }),
                _ => None,
            };
            // The results of the round that stopped the run, written below, after the rollback.
            let mut unwritten = std::mem::take(&mut state.unwritten);
            let mut compensations = Vec::new();
            let mut store_error = state.store_error.take().map(|error| *error);
            let mut lost = taken_over;
            let mut unfinished = false;
            if let Some(reason) = reason {
                let entries = state
                    .record
                    .drain_newest_first()
                    .into_iter()
                    .map(|entry| {
                        let held = if self.records.store.is_none()
                            || state.local_only.contains(&entry.idempotency_key)
                        {
                            Held::LocalOnly
                        } else {
                            Held::Stored
                        };
                        (entry, held)
                    })
                    .collect();
                let calls = &mut state.calls;
                let rollback = Rollback {
                    store: self.records.store.as_deref(),
                    heartbeat: &heartbeat,
                    run: &state.id,
                    lease: self.records.lease,
                    timeout: self.records.compensation_timeout,
                };
                // Boxed: a rollback is the exception, and its state held inline would make every
                // run's future larger, to be moved by each caller that spawns or blocks on a run.
                let end = Box::pin(rollback.run(
                    entries,
                    taken_over,
                    |name| tools.get(name),
                    |entry, result| {
                        let error = result.as_ref().err().map(ToString::to_string);
                        self.observers.compensated(
                            &entry.key,
                            &entry.call.name,
                            entry.round,
                            error.as_deref(),
                        );
                        if error.is_none() {
                            // The outcome's summary of the call says what the model is told.
                            let call = calls
                                .iter_mut()
                                .find(|call| call.round == entry.round && call.key == entry.key);
                            if let Some(call) = call {
                                call.status = ToolResultStatus::RolledBack;
                            }
                        }
                        // A result of an earlier round was read by the model as the call's
                        // success: it is marked where it stands. One of the last round is not
                        // written yet: it is written so.
                        let written = conversation.len();
                        let message = match entry.message_index.checked_sub(written) {
                            None => conversation.get_mut(entry.message_index),
                            Some(unwritten_at) => unwritten.get_mut(unwritten_at),
                        };
                        if let Some(Message::Tool(message)) = message {
                            tell_rolled_back(message, &reason, error);
                        }
                    },
                ))
                .await;
                lost |= end.lost;
                unfinished = end.unfinished;
                if let Some(error) = end.store_error {
                    store_error.get_or_insert(error);
                }
                compensations = end.undone;
            }
            conversation.append(&mut unwritten);
            // No renewal may land after the run's end (or release) is recorded.
            heartbeat.stop().await;
            let ended = !matches!(status, LoopStatus::Paused(_)) && !lost;
            if let (Some(store), true) = (&self.records.store, ended) {
                let recorded = if unfinished {
                    // Released at once, for recovery to try the timed-out actions again.
                    store.release(&state.id, Duration::ZERO).await
                } else {
                    durable::record_end(&**store, &state.id).await
                };
                if let Err(failure) = recorded {
                    store_error.get_or_insert(failure);
                }
            }
            LoopOutcome {
                status,
                rounds: state.rounds,
                calls: state.calls,
                usage: state.usage,
                compensations,
                decisions: state.decisions,
                run_id: state.id,
                store_error,
            }
        }
    }
}

/// Marks a rolled-back call's result so the model knows its effect no longer holds (or, when
/// the rollback failed, may still hold).
fn tell_rolled_back(message: &mut ToolResultMessage, reason: &str, error: Option<String>) {
    let notice = match &error {
        None => format!(
            "This call was rolled back because {reason}; its effect no longer holds. It had returned:"
        ),
        Some(error) => format!(
            "Rolling this call back failed ({error}) after {reason}; its effect may still hold. It had returned:"
        ),
    };
    message.content = format!("{notice} {}", message.content);
    // A model reading the parts reads the notice there too, before what the call returned.
    if !message.parts.is_empty() {
        message.parts.insert(0, crate::define::Part::text(notice));
    }
    if error.is_none() {
        message.status = ToolResultStatus::RolledBack;
    }
}
