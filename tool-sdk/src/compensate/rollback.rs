//! The one rollback engine: the end of a run that failed or was cancelled, and recovery of a run
//! whose process stopped, both undo recorded successes through it, newest first, each once.

use std::sync::Arc;
use std::time::Duration;

use tracing::Instrument as _;

use crate::compensate::{compensate_one, CompensationReport};

use crate::define::{Tool, ToolError};
use crate::store::{
    Compensated, Heartbeat, RecordEntry, RunId, RunStore, StoreError, MAX_COMPENSATION_ATTEMPTS,
};

/// Where an entry to roll back is known to be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Held {
    /// In the run's store (or possibly there: a write whose outcome is unknown). Whoever owns
    /// the run rolls it back: this owner only while it still does.
    Stored,
    /// Only in this process: there is no store, or the store refused the record because the
    /// run was taken over. Nobody else knows of it, so this process rolls it back whatever
    /// happened to the run.
    LocalOnly,
}

/// A rollback of one run's entries, by the owner (or the only process) that holds them.
pub(crate) struct Rollback<'a> {
    pub(crate) store: Option<&'a dyn RunStore>,
    /// Renews the run's lease for the whole rollback, during each action too: an action that
    /// outlasts the lease (within its timeout) must not hand the run to another owner, who
    /// would roll it back again, and lose it back the same way.
    pub(crate) heartbeat: &'a Heartbeat,
    pub(crate) run: &'a RunId,
    pub(crate) lease: Duration,
    /// For actions whose tool declares no timeout.
    pub(crate) timeout: Duration,
}

/// How a rollback went.
#[derive(Debug, Default)]
pub(crate) struct RollbackEnd {
    /// Each action tried, in the order tried (newest entry first), and how it ended.
    pub(crate) undone: Vec<CompensationReport>,
    /// The store said the run is another owner's: stored entries were left to it.
    pub(crate) lost: bool,
    /// An action timed out with attempts to spare: the run must stay for recovery to retry.
    pub(crate) unfinished: bool,
    /// The first store write that failed otherwise.
    pub(crate) store_error: Option<StoreError>,
}

impl Rollback<'_> {
    /// Rolls back `entries`, given newest first. `lost`: the run is known to be another owner's
    /// already, so only [`Held::LocalOnly`] entries are this process's to undo. `each` sees every
    /// action's result as it ends.
    pub(crate) async fn run<'t>(
        &self,
        entries: Vec<(RecordEntry, Held)>,
        lost: bool,
        tool: impl Fn(&str) -> Option<&'t Arc<dyn Tool>>,
        mut each: impl FnMut(&RecordEntry, &Result<(), ToolError>),
    ) -> RollbackEnd {
        let mut end = RollbackEnd {
            lost,
            ..RollbackEnd::default()
        };
        for (entry, held) in entries {
            let store = match (held, self.store) {
                (Held::Stored, Some(store)) => Some(store),
                _ => None,
            };
            if let Some(store) = store {
                if end.lost || self.heartbeat.is_lost() {
                    end.lost = true;
                    continue;
                }
                // Checked right before: an entry of a run taken over is the new owner's. The
                // heartbeat then keeps the lease for as long as the action takes.
                match store.renew(self.run, self.lease).await {
                    Ok(()) => {}
                    Err(StoreError::Lost(_)) => {
                        end.lost = true;
                        continue;
                    }
                    // Not refuted: roll back (a repetition carries the same idempotency key).
                    Err(error) => {
                        tracing::warn!(run = %self.run, error = %error, "lease not renewed before a rollback");
                    }
                }
            }
            let name = entry.call.name.as_str();
            let span = tracing::info_span!(
                "gen_ai.compensate_tool",
                gen_ai.operation.name = "compensate_tool",
                gen_ai.tool.name = %name,
                gen_ai.tool.call.id = entry.call.id.as_deref().unwrap_or(""),
                run = %self.run,
            );
            let result = self
                .attempt(tool(name), &entry, held)
                .instrument(span)
                .await;
            tracing::info!(gen_ai.tool.name = %name, key = %entry.key, error = ?result.as_ref().err(), "compensated");
            if let Some(store) = store {
                let outcome = self.outcome(&entry, &result, &mut end);
                match store
                    .compensated(self.run, &entry.idempotency_key, &outcome)
                    .await
                {
                    Ok(()) => {}
                    // Done already; the new owner may repeat it, with the same key.
                    Err(StoreError::Lost(_)) => end.lost = true,
                    Err(error) => {
                        tracing::warn!(run = %self.run, error = %error, "rollback not recorded");
                        end.store_error.get_or_insert(error);
                    }
                }
            }
            each(&entry, &result);
            end.undone.push(CompensationReport {
                key: entry.key,
                name: entry.call.name,
                round: entry.round,
                result,
            });
        }
        end
    }

    /// Runs the action. An entry of a run taken over that only this process knows of has
    /// nobody to try it again later: a timed-out attempt is repeated here, with the same key,
    /// up to [`MAX_COMPENSATION_ATTEMPTS`] in all.
    async fn attempt(
        &self,
        tool: Option<&Arc<dyn Tool>>,
        entry: &RecordEntry,
        held: Held,
    ) -> Result<(), ToolError> {
        let in_place = held == Held::LocalOnly && self.store.is_some();
        let mut attempts = 1;
        loop {
            let result = compensate_one(tool, entry, self.timeout).await;
            if !in_place
                || attempts >= MAX_COMPENSATION_ATTEMPTS
                || !matches!(result, Err(ToolError::TimedOut { .. }))
            {
                return result;
            }
            attempts += 1;
        }
    }

    /// What to record of an action's end: a timeout with attempts to spare is left for
    /// recovery to retry; the last one is a failure for good.
    fn outcome(
        &self,
        entry: &RecordEntry,
        result: &Result<(), ToolError>,
        end: &mut RollbackEnd,
    ) -> Compensated {
        match result {
            Ok(()) => Compensated::Done,
            Err(ToolError::TimedOut { .. }) => {
                let attempts = entry.attempts.saturating_add(1);
                if attempts < MAX_COMPENSATION_ATTEMPTS {
                    end.unfinished = true;
                    Compensated::TimedOut { attempts }
                } else {
                    Compensated::Failed(format!("timed out {attempts} times"))
                }
            }
            Err(error) => Compensated::Failed(error.to_string()),
        }
    }
}
