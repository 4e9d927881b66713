//! How a run ended, and how a round ended.

use crate::compensate::CompensationReport;
use crate::model::{AssistantMessage, ModelError, Usage};
use crate::run::BudgetLimit;
use crate::store::{CallSummary, DecisionRecord, PausedTurn, RunId, StoreError};

/// How a run ended, with what it did.
///
/// A run that paused is waiting for a person and a run that failed may have rolled back: an
/// outcome dropped unread loses that, hence `#[must_use]`.
#[derive(Debug)]
#[must_use = "a run may have paused for a decision or failed; read its status"]
pub struct LoopOutcome {
    /// Why the run stopped.
    pub status: LoopStatus,
    /// Model calls made in this run (across a pause and its resumption).
    pub rounds: usize,
    /// Every tool call of the run, in the order the replies gave them.
    pub calls: Vec<CallSummary>,
    /// The tokens the model reported for the run's requests, summed (across a pause and its
    /// resumption); zero when it reports none.
    pub usage: Usage,
    /// Every rollback of the run, in the order it ran (newest call first).
    pub compensations: Vec<CompensationReport>,
    /// What a person decided at each pause of the run, on each call that waited, oldest
    /// first: who, when, on which call (its fingerprint), and what.
    pub decisions: Vec<DecisionRecord>,
    /// The run's id (what a paused run is resumed by, and what idempotency keys start with).
    pub run_id: RunId,
    /// The store's first failure in the run, its one report: the failure that stopped it
    /// ([`LoopStatus::StoreFailed`]); or, once it had ended otherwise, a rollback that could not
    /// be recorded, the run's end that could not be (until it is, recovery may take the run for
    /// one that stopped in the middle), or the conversation that its memory could not keep
    /// ([`Run::with_memory`](crate::run::Run::with_memory)).
    pub store_error: Option<StoreError>,
}

impl LoopOutcome {
    /// A run that stopped before anything ran, because its store failed.
    pub(crate) fn not_started(run_id: RunId, error: StoreError) -> Self {
        Self {
            status: LoopStatus::StoreFailed,
            rounds: 0,
            calls: Vec::new(),
            usage: Usage::default(),
            compensations: Vec::new(),
            decisions: Vec::new(),
            run_id,
            store_error: Some(error),
        }
    }
}

/// Why a run stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoopStatus {
    /// The model answered without tool calls; the answer is the last message.
    Answered(AssistantMessage),
    /// Every call of the last reply was a return-direct tool: their results are the answer.
    ReturnedDirect(Vec<crate::model::ToolResultMessage>),
    /// The round limit was reached; all work done is kept.
    MaxRoundsReached,
    /// A limit of the run's [`Budget`](crate::run::Budget) was reached (which one, what was
    /// used and what was allowed): the run stopped before the step it forbids. As at the round
    /// limit, all work done is kept; the last reply's calls, when it was their number that
    /// crossed the limit, did not run and are answered so.
    BudgetExhausted(BudgetLimit),
    /// Calls wait for a person's decisions; resume with [`ToolLoop::resume`](crate::run::ToolLoop::resume).
    ///
    /// Boxed: the paused turn is the largest status by far, and a status is held in every
    /// run's future.
    Paused(Box<PausedTurn>),
    /// The run was cancelled: the round in flight drained, then what was compensable was
    /// rolled back.
    Cancelled,
    /// A tool failed in a way that fails the run ([`ErrorAction::RollBack`](crate::run::ErrorAction::RollBack)); what was
    /// compensable was rolled back.
    RolledBack {
        /// The failed call's key in its reply.
        key: String,
        /// The failed tool.
        name: String,
        /// What went wrong.
        error: crate::define::ToolError,
    },
    /// The model could not be called; what was compensable was rolled back.
    ModelFailed(ModelError),
    /// A tool of the run cannot be described in the model's
    /// [dialect](crate::ChatModel::dialect) (the error names the tool, the place in its
    /// schema and the rule): the run stopped before a request that would have offered it, and
    /// what was compensable was rolled back.
    DescribeFailed(crate::describe::LoweringError),
    /// The run's store failed (the run could not begin, a success could not be recorded
    /// before going on, or the run could not pause); what was compensable was rolled back. The
    /// failure is in [`LoopOutcome::store_error`]. When the store says the run was taken over
    /// ([`StoreError::Lost`]), the calls in flight were let finish and only the successes the
    /// store refused to record were rolled back here: the new owner rolls back the recorded
    /// ones.
    StoreFailed,
}

impl LoopStatus {
    /// The paused turn, when the run waits for decisions: its
    /// [`awaiting`](PausedTurn::awaiting) keys name the calls that wait.
    pub fn paused(&self) -> Option<&PausedTurn> {
        match self {
            Self::Paused(paused) => Some(paused),
            _ => None,
        }
    }
}

/// How a round ended: the loop goes on, or the run stops with a status.
pub(crate) enum RoundEnd {
    Continue,
    Stop(LoopStatus),
}
