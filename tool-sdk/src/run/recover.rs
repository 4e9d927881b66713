//! Recovery: rolling back what runs interrupted by a crash had recorded.

use tokio_util::sync::CancellationToken;

use crate::compensate::{CompensationReport, Held, Rollback};
use crate::run::durable::record_end;
use crate::run::ToolLoop;
use crate::store::{Heartbeat, Orphans, RunId, StoreError};

/// A run that stopped in the middle, and how its rollback went.
#[derive(Debug)]
pub struct RecoveredRun {
    /// The run.
    pub run: RunId,
    /// Each rollback, newest call first. A failed one is reported here and recorded as failed,
    /// not tried again.
    pub compensations: Vec<CompensationReport>,
    /// Why the run was not rolled back at all: its record failed its seal
    /// ([`StoreError::Tampered`]). Nothing ran from it; the run is left in the store as it is,
    /// for a person to look at, and reported again by each later recovery.
    pub refused: Option<StoreError>,
}

impl ToolLoop {
    /// The rollback of runs a crash interrupted: what [`ToolLoop::recover`] does.
    pub(super) async fn recover_orphans(
        &self,
        which: Orphans,
    ) -> Result<Vec<RecoveredRun>, StoreError> {
        let Some(store) = &self.records.store else {
            return Ok(Vec::new());
        };
        let mut tools = self
            .callees
            .run_tools(self.options.defer_threshold, Default::default());
        self.callees.refresh(&mut tools, &self.observers).await;
        let mut recovered = Vec::new();
        // Runs this pass lost to another owner or released for a later attempt: claimed again,
        // they would be taken back from an owner at work on them, or retried at once.
        let mut skip = Vec::new();
        loop {
            let orphan = match store.claim_orphan(which, self.records.lease, &skip).await {
                Ok(Some(orphan)) => orphan,
                Ok(None) => break,
                // The claim was undone; the other runs are still recovered.
                Err(StoreError::Tampered { run, what, reason }) => {
                    let id = RunId::from_string(run.clone());
                    let refused = StoreError::Tampered { run, what, reason };
                    tracing::error!(run = %id, error = %refused, "a run's record failed its seal");
                    let run = id;
                    skip.push(run.clone());
                    recovered.push(RecoveredRun {
                        run,
                        compensations: Vec::new(),
                        refused: Some(refused),
                    });
                    continue;
                }
                Err(error) => return Err(error),
            };
            let run = orphan.run;
            tracing::info!(run = %run, pending = orphan.pending.len(), "recovering a run");
            // Nothing to stop on a loss but the rollback itself, which the heartbeat tells.
            let heartbeat = Heartbeat::start(
                Some(store),
                &run,
                self.records.lease,
                &CancellationToken::new(),
            );
            let rollback = Rollback {
                store: Some(&**store),
                heartbeat: &heartbeat,
                run: &run,
                lease: self.records.lease,
                timeout: self.records.compensation_timeout,
            };
            let entries = orphan
                .pending
                .into_iter()
                .rev()
                .map(|entry| (entry, Held::Stored))
                .collect();
            let end = rollback
                .run(entries, false, |name| tools.get(name), |_, _| {})
                .await;
            // No renewal may land after the run's end (or release) is recorded.
            heartbeat.stop().await;
            if let Some(error) = end.store_error {
                return Err(error);
            }
            if end.lost {
                skip.push(run.clone());
            } else if end.unfinished {
                // A later recovery (after a lease, or at the next start) tries the timed-out
                // actions again, once this attempt had time to end.
                store.release(&run, self.records.lease).await?;
                skip.push(run.clone());
            } else {
                record_end(&**store, &run).await?;
            }
            recovered.push(RecoveredRun {
                run,
                compensations: end.undone,
                refused: None,
            });
        }
        Ok(recovered)
    }
}
