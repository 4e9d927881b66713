//! Resuming a paused reply that was kept server-side or handed out sealed: verify, check the
//! decisions, use the turn up, then run.

use crate::gate::gate::run_resolved;
use crate::gate::{CallOutcome, DecisionError, Gate, SealError, Sealer, ToolCallDecisions};
use crate::register::ToolRegistry;
use crate::store::{PausedTurnStore, StoreError, TurnId};

/// Why a paused reply could not be resumed. Nothing ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The decisions do not fit the reply.
    #[error(transparent)]
    Decision(#[from] DecisionError),
    /// The sealed token was refused.
    #[error(transparent)]
    Seal(#[from] SealError),
    /// The stored turn could not be read or used.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Gate {
    /// Resumes a sealed paused reply: the token is verified, the decisions checked, and only
    /// then the token used up (so decisions that do not fit can be corrected and sent again).
    pub async fn resume_sealed(
        &self,
        registry: &ToolRegistry,
        sealer: &Sealer,
        token: &str,
        decisions: &ToolCallDecisions,
    ) -> Result<Vec<CallOutcome>, ResumeError> {
        let opened = sealer.open(token)?;
        let resolutions = self.resolve(opened.turn(), decisions)?;
        if !opened.consume(sealer.replay_guard()).await? {
            return Err(SealError::Replayed.into());
        }
        Ok(run_resolved(registry, opened.turn().reply(), resolutions).await)
    }

    /// Resumes a paused reply kept in `store`: it is read, the decisions checked, then taken
    /// out of the store (of two concurrent resumes, exactly one gets it) and run.
    pub async fn resume_stored(
        &self,
        registry: &ToolRegistry,
        store: &dyn PausedTurnStore,
        id: &TurnId,
        decisions: &ToolCallDecisions,
    ) -> Result<Vec<CallOutcome>, ResumeError> {
        // Checked before taking, so decisions that do not fit leave the turn in place.
        self.resolve(&store.load(id).await?, decisions)?;
        let taken = store.take(id).await?;
        // What runs is what was taken, checked again.
        let resolutions = self.resolve(&taken, decisions)?;
        Ok(run_resolved(registry, taken.reply(), resolutions).await)
    }
}
