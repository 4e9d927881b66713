//! The history of decisions: each pause a run was resumed from, who decided what, and what came
//! of it, kept by the run's store so that a restart or another process shows it. Written by the
//! tool loop as it resumes a run (running) and as the resumed run stops (ended).

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::store::{CallSummary, DecisionRecord, PauseId, RunId};

/// One pause of a run that was decided, and what came of the decision: running until the
/// resumed run stops, then how it ended. Listed newest first by
/// [`RunStore::list_decided`](crate::store::RunStore::list_decided).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DecidedRun {
    /// The run.
    pub run: RunId,
    /// The pause that was decided.
    pub pause: PauseId,
    /// What the person using the application asked: the conversation's last user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    /// The decisions on the calls that waited: who, when, on which call, and what.
    pub decisions: Vec<DecisionRecord>,
    /// When the run was taken from its pause to go on.
    pub decided_at: SystemTime,
    /// How the resumed run ended; `None` while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<RunEnded>,
}

/// How a resumed run ended, as its history keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunEnded {
    /// When.
    pub at: SystemTime,
    /// How, as a person reads it: `answered`, `paused again`, `rolled back: ...`.
    pub how: String,
    /// The answer, when the model or the tools gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The calls the run made, all of its rounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallSummary>,
    /// What was rolled back, newest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rollbacks: Vec<RolledBack>,
}

/// One call rolled back, as a run's history keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RolledBack {
    /// The call's key.
    pub key: String,
    /// The tool.
    pub tool: String,
    /// Why its rollback failed; `None` when it was undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

impl DecidedRun {
    /// A pause of `run` taken at `decided_at` with `decisions`, its run going on.
    pub fn running(
        run: RunId,
        pause: PauseId,
        asked: Option<String>,
        decisions: Vec<DecisionRecord>,
        decided_at: SystemTime,
    ) -> Self {
        Self {
            run,
            pause,
            asked,
            decisions,
            decided_at,
            ended: None,
        }
    }

    /// Whether the resumed run still runs.
    pub fn is_running(&self) -> bool {
        self.ended.is_none()
    }

    /// The record as JSON, the column the SQL stores keep.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn to_column(&self) -> Result<String, crate::store::StoreError> {
        serde_json::to_string(self)
            .map_err(|error| crate::store::StoreError::Backend(error.to_string()))
    }

    /// The record read back from its column.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn from_column(column: &str) -> Result<Self, crate::store::StoreError> {
        serde_json::from_str(column)
            .map_err(|error| crate::store::StoreError::Backend(error.to_string()))
    }
}

impl RunEnded {
    /// How a run ended at `at`: `how`, the `answer` if any, its `calls` and `rollbacks`.
    pub fn new(
        at: SystemTime,
        how: impl Into<String>,
        answer: Option<String>,
        calls: Vec<CallSummary>,
        rollbacks: Vec<RolledBack>,
    ) -> Self {
        Self {
            at,
            how: how.into(),
            answer,
            calls,
            rollbacks,
        }
    }
}

impl RolledBack {
    /// The call `key` of `tool`, undone or, with `failed`, not.
    pub fn new(key: impl Into<String>, tool: impl Into<String>, failed: Option<String>) -> Self {
        Self {
            key: key.into(),
            tool: tool.into(),
            failed,
        }
    }
}
