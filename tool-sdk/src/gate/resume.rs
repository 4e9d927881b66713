//! Resuming a paused turn, from wherever its genuine copy was kept: the decisions are checked
//! against that copy, the copy is used up, and only then does anything run.

use std::fmt;

use crate::define::ToolError;
use crate::gate::{record, Gate, GateError, Resolution, Sealer, ToolCallDecisions, Verdict};
use crate::model::ToolCall;
use crate::store::{PausedTurn, RunId, RunStore, StoreError, DEFAULT_LEASE};

/// Where the genuine copy of a paused turn is kept, for [`Gate::resume`].
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum Kept<'a> {
    /// In a run store under the turn's id ([`Gate::keep`] put it there, or the loop did): any
    /// process sharing the store can resume it, once.
    Stored {
        /// The store.
        store: &'a dyn RunStore,
        /// The turn's id.
        id: &'a RunId,
    },
    /// Handed out as a token sealed by `sealer` ([`Sealer::seal`]), usable once.
    Sealed {
        /// The sealer that sealed it (the same key).
        sealer: &'a Sealer,
        /// The token.
        token: &'a str,
    },
}

impl fmt::Debug for Kept<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stored { id, .. } => f.debug_struct("Stored").field("id", id).finish(),
            Self::Sealed { .. } => f.write_str("Sealed"),
        }
    }
}

/// Refuses a turn that is a tool loop's pause on its budget: the gate alone would run the
/// loop's own call, which is no tool.
fn refuse_budget_pause(turn: &PausedTurn) -> Result<(), GateError> {
    match turn.run.budget.asked {
        Some(_) => Err(GateError::BudgetPause {
            id: turn.id().clone(),
        }),
        None => Ok(()),
    }
}

/// How a call's arguments are checked against its tool: [`ToolRegistry::check`], in the
/// registry the call runs from.
///
/// [`ToolRegistry::check`]: crate::register::ToolRegistry::check
pub(crate) type CheckCall<'a> = &'a (dyn Fn(&ToolCall) -> Result<(), ToolError> + Sync);

/// Checks the arguments a person gave in place of the model's against each call's tool:
/// refused before anything is taken, so corrected decisions can be sent again.
fn check_edits(
    turn: &PausedTurn,
    decisions: &ToolCallDecisions,
    check: CheckCall<'_>,
) -> Result<(), GateError> {
    for pending in turn.calls() {
        let Some(Verdict::AllowEdited { arguments, .. }) = decisions
            .decision_on(&pending.key)
            .map(|decision| &decision.verdict)
        else {
            continue;
        };
        let edited = ToolCall {
            arguments: arguments.clone(),
            ..pending.call.clone()
        };
        check(&edited).map_err(|error| GateError::EditRefused {
            key: pending.key.clone(),
            reason: error.to_string(),
        })?;
    }
    Ok(())
}

/// `turn`, taken to run as `decisions` say, with those decisions recorded in its run's state:
/// every way a turn is taken writes them, once, as it is taken.
fn with_records(mut turn: PausedTurn, decisions: &ToolCallDecisions) -> PausedTurn {
    let records = record::records(&turn, decisions, std::time::SystemTime::now());
    turn.run.decisions.extend(records);
    turn
}

impl Gate {
    /// Keeps `turn` server-side in `store`, under its [`id`](PausedTurn::id), to be resumed
    /// with [`Kept::Stored`] by any process sharing the store.
    pub async fn keep(&self, store: &dyn RunStore, turn: &PausedTurn) -> Result<(), StoreError> {
        store.begin(turn.id(), DEFAULT_LEASE).await?;
        store.pause(turn.id(), turn).await
    }

    /// Takes a paused turn from where it was kept, once `decisions` fit it: the decisions are
    /// checked against the genuine copy (so decisions that do not fit can be corrected and sent
    /// again), and the copy is used up (of two concurrent takes, in any processes, exactly one
    /// gets it). Nothing runs: [`resume`](Self::resume) runs what this gives.
    pub(crate) async fn take_kept(
        &self,
        kept: Kept<'_>,
        decisions: &ToolCallDecisions,
        check: CheckCall<'_>,
    ) -> Result<(PausedTurn, Vec<Resolution>), GateError> {
        match kept {
            Kept::Sealed { sealer, token } => {
                let opened = sealer.open(token)?;
                refuse_budget_pause(opened.turn())?;
                let resolutions = self.resolve(opened.turn(), decisions)?;
                check_edits(opened.turn(), decisions, check)?;
                if !opened.consume(sealer.replay_guard()).await? {
                    return Err(GateError::Replayed);
                }
                Ok((with_records(opened.into_turn(), decisions), resolutions))
            }
            Kept::Stored { store, id } => {
                // Looked at before anything is taken; a turn that cannot be loaded is refused
                // by the take, as always.
                if let Ok(kept) = store.load_paused(id).await {
                    refuse_budget_pause(&kept)?;
                }
                self.take_decided(store, id, decisions, DEFAULT_LEASE, check)
                    .await
                    .map_err(|error| match error {
                        // A turn the gate paused alone is no run: say what is missing.
                        GateError::Store(StoreError::UnknownRun(_)) => {
                            GateError::UnknownTurn { id: id.clone() }
                        }
                        other => other,
                    })
            }
        }
    }

    /// Takes the turn paused under `id` in `store` once `decisions` fit it, owned for `lease`:
    /// checked before it is taken (decisions that do not fit leave it paused), and taken only
    /// while the run still waits at the pause the decisions were made for (the store checks and
    /// takes in one step), so decisions never apply to another pause of the run. The arguments
    /// a person gave in place of the model's are checked by `check` before it is taken.
    pub(crate) async fn take_decided(
        &self,
        store: &dyn RunStore,
        id: &RunId,
        decisions: &ToolCallDecisions,
        lease: std::time::Duration,
        check: CheckCall<'_>,
    ) -> Result<(PausedTurn, Vec<Resolution>), GateError> {
        let already_decided = |error| match error {
            StoreError::AlreadyDecided(_) => GateError::AlreadyDecided {
                pause: decisions.pause().clone(),
            },
            other => GateError::Store(other),
        };
        let kept = store.load_paused(id).await.map_err(already_decided)?;
        self.resolve(&kept, decisions)
            .map_err(|error| match error {
                // A pause of this run that was decided: the run went on past it.
                GateError::OtherPause { decisions_for, .. }
                    if kept.run.decided.contains(&decisions_for) =>
                {
                    GateError::AlreadyDecided {
                        pause: decisions_for,
                    }
                }
                other => other,
            })?;
        check_edits(&kept, decisions, check)?;
        let taken = store
            .take_paused(id, decisions.pause(), lease)
            .await
            .map_err(already_decided)?;
        // What runs is what is checked: the copy taken, checked again (the same pause, so the
        // same turn, unless its stored copy was edited in between).
        match self.resolve(&taken, decisions) {
            Ok(resolutions) => Ok((with_records(taken, decisions), resolutions)),
            Err(refused) => {
                store.pause(id, &taken).await?;
                Err(refused)
            }
        }
    }
}
