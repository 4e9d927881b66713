//! Recovery: rolling back what runs interrupted by a crash had recorded.

use tracing::Instrument as _;

use crate::compensate::{compensate_one, CompensationReport};
use crate::durable::{Compensated, Orphans, RunId, StoreError};
use crate::run::durable::finish_run;
use crate::run::tools::RunTools;
use crate::run::ToolLoop;

/// A run that stopped in the middle, and how its rollback went.
#[derive(Debug)]
pub struct RecoveredRun {
    /// The run.
    pub run: RunId,
    /// Each rollback, newest call first. A failed one is reported here and recorded as failed,
    /// not tried again.
    pub compensations: Vec<CompensationReport>,
}

impl ToolLoop {
    /// Finds runs of this loop's store that stopped in the middle (their process crashed) and
    /// rolls back what each recorded, newest first; each run is then finished.
    ///
    /// Each rollback is recorded once done, so a recovery that itself crashes is taken up by
    /// the next one where it stopped; only a rollback interrupted between doing and recording
    /// runs again, with the same idempotency key
    /// ([`RecordEntry::idempotency_key`](crate::compensate::RecordEntry::idempotency_key)).
    /// Runs are claimed one at a time, atomically, so replicas recovering at once share the
    /// work and never roll back one run twice. The claim's lease is renewed before each
    /// rollback; a single rollback longer than the lease lets another replica take the run
    /// over (it then repeats only that rollback, with the same idempotency key). Paused runs
    /// are left alone.
    ///
    /// `which`: [`Orphans::Expired`] with replicas (runs whose lease ran out);
    /// [`Orphans::All`] for a single process at start-up. Without a store there is nothing to
    /// recover.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_sdk::durable::{InMemoryRunStore, Orphans};
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
        let Some(store) = &self.store else {
            return Ok(Vec::new());
        };
        let mut tools = RunTools::new(
            &self.registry,
            &*self.search,
            self.options.defer_threshold,
            Default::default(),
        );
        tools.refresh(&self.providers).await;
        let mut recovered = Vec::new();
        while let Some(orphan) = store.claim_orphan(which, self.lease).await? {
            let run = orphan.run;
            tracing::info!(run = %run, pending = orphan.pending.len(), "recovering a run");
            let mut compensations = Vec::new();
            for entry in orphan.pending.iter().rev() {
                // Renewed before each rollback, so the claim outlives a long recovery as long
                // as no single rollback outlasts the lease.
                store.renew(&run, self.lease).await?;
                let name = entry.call.name.clone();
                let span = tracing::info_span!(
                    "gen_ai.compensate_tool",
                    gen_ai.operation.name = "compensate_tool",
                    gen_ai.tool.name = %name,
                    run = %run,
                );
                let result = compensate_one(tools.get(&name), entry)
                    .instrument(span)
                    .await;
                let outcome = match &result {
                    Ok(()) => Compensated::Done,
                    Err(error) => Compensated::Failed(error.to_string()),
                };
                store
                    .compensated(&run, &entry.idempotency_key, &outcome)
                    .await?;
                compensations.push(CompensationReport {
                    key: entry.key.clone(),
                    name,
                    round: entry.round,
                    result,
                });
            }
            finish_run(&**store, &run).await?;
            recovered.push(RecoveredRun { run, compensations });
        }
        Ok(recovered)
    }
}
