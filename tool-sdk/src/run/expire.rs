//! Deadlines kept: the runs whose pause waited past its deadline are resumed with every waiting
//! call denied, once, by whichever process gets there first.

use std::time::SystemTime;

use crate::gate::GateError;
use crate::run::{Conversation, LoopOutcome, ToolLoop};
use crate::store::{ChatMemory, RunId, StoreError};

/// A run whose pause's deadline passed, and what came of resuming it with its waiting calls
/// denied ([`ToolLoop::expire_overdue`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct ExpiredRun {
    /// The run.
    pub run: RunId,
    /// The id of the conversation the chat memory keeps for it, which it went on with.
    pub conversation: String,
    /// What came of it: the model read why each waiting call did not run, and went on.
    pub outcome: LoopOutcome,
}

impl ToolLoop {
    /// Resumes every run of this loop's store whose pause waited past its
    /// [deadline](crate::gate::ConfirmationPolicy::with_deadline) with its
    /// [expiry](crate::store::PausedTurn::expiry): each waiting call is denied, the model
    /// reading that no one decided in time, and the run goes on, on the conversation `memory`
    /// keeps for it. Call it on a timer (the approval page's server does, every few seconds):
    /// in any number of processes sharing the store, each run is resumed once, by whichever
    /// takes it first, and a person's decision taken before it wins.
    ///
    /// Runs that keep their conversation in the application, not in a chat memory, are left
    /// to it: it resumes them with [`PausedTurn::expiry`](crate::store::PausedTurn::expiry)
    /// (past the deadline nothing else may allow their calls). Fails only when the store cannot
    /// list the overdue runs; a run that cannot be resumed is logged and left for the next
    /// sweep.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use tool_sdk::gate::{ConfirmationPolicy, Gate};
    /// use tool_sdk::run::ToolLoop;
    /// use tool_sdk::store::InMemoryChatMemory;
    /// use tool_sdk::{ScriptedModel, ToolRegistry};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let policy = ConfirmationPolicy::new().with_deadline(Duration::from_secs(15 * 60));
    /// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
    ///     .with_gate(Gate::new(policy));
    /// let memory = InMemoryChatMemory::new();
    /// // Nothing waits yet, so nothing is overdue.
    /// assert!(agent.expire_overdue(&memory).await.unwrap().is_empty());
    /// # }
    /// ```
    pub async fn expire_overdue(
        &self,
        memory: &dyn ChatMemory,
    ) -> Result<Vec<ExpiredRun>, StoreError> {
        let overdue = self
            .run_store()
            .list_overdue(SystemTime::now(), usize::MAX)
            .await?;
        let mut expired = Vec::new();
        for paused in overdue {
            let turn = paused.turn;
            let Some(conversation) = turn.conversation() else {
                continue;
            };
            let resumed = self
                .resume(Conversation::Owned(Vec::new()), turn.id(), &turn.expiry())
                .with_memory(memory, conversation)
                .await;
            match resumed {
                Ok(outcome) => expired.push(ExpiredRun {
                    run: turn.id().clone(),
                    conversation: conversation.to_owned(),
                    outcome,
                }),
                // Decided first by a person, or by another process's sweep.
                Err(GateError::AlreadyDecided { .. } | GateError::OtherPause { .. }) => {}
                Err(error) => {
                    tracing::warn!(run = %turn.id(), %error, "an overdue run could not be resumed; the next sweep tries again");
                }
            }
        }
        Ok(expired)
    }
}
