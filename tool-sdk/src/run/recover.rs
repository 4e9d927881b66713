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
    /// Finds runs of this loop's store that stopped in the middle (their process crashed) and
    /// rolls back what each recorded, newest first; each run is then finished.
    ///
    /// Each rollback is recorded once done, so a recovery that itself crashes is taken up by
    /// the next one where it stopped; only a rollback interrupted between doing and recording
    /// runs again, with the same idempotency key
    /// ([`RecordEntry::idempotency_key`](crate::store::RecordEntry::idempotency_key)).
    /// Runs are claimed one at a time, atomically, so replicas recovering at once share the
    /// work and never roll back one run twice. The claim's lease is renewed for as long as its
    /// rollback takes, during each action too, and every action is bounded by its timeout
    /// ([`with_compensation_timeout`](Self::with_compensation_timeout)). A timed-out action is
    /// recorded as such and its run released, left for a later recovery (by any owner, this one
    /// included, once a lease has passed; or at the next start) to try again with the same key,
    /// up to
    /// [`MAX_COMPENSATION_ATTEMPTS`](crate::store::MAX_COMPENSATION_ATTEMPTS) in all; it
    /// is then recorded as failed and reported, not tried again. A run this pass lost to
    /// another owner (this process stalled past its lease) or released is not claimed again in
    /// the same pass, so a pass always ends. Paused runs are left alone.
    ///
    /// `which`: [`Orphans::Expired`] with replicas (runs whose lease ran out);
    /// [`Orphans::All`] for a single process at start-up. Without a store there is nothing to
    /// recover.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_sdk::store::{InMemoryRunStore, Orphans};
    /// use tool_sdk::run::ToolLoop;
    /// use tool_sdk::{ScriptedModel, ToolRegistry};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
    ///     .with_store(Arc::new(InMemoryRunStore::new()));
    /// // At start-up, before serving: roll back what the previous process left half done.
    /// let recovered = agent.recover(Orphans::All).await.unwrap();
    /// assert!(recovered.is_empty());
    /// # }
    /// ```
    pub async fn recover(&self, which: Orphans) -> Result<Vec<RecoveredRun>, StoreError> {
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
