//! What the loop reports as it goes, to an optional listener and as `tracing` events.

use crate::model::ToolResultStatus;

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoopEvent {
    /// A request went to the model.
    ModelCalled {
        /// The round (1 for the first request).
        round: usize,
    },
    /// A tool call started.
    ToolStarted {
        /// The call's key in its reply.
        key: String,
        /// The tool.
        name: String,
    },
    /// A tool call ended.
    ToolFinished {
        /// The call's key in its reply.
        key: String,
        /// The tool.
        name: String,
        /// How it ended.
        status: ToolResultStatus,
    },
    /// A successful call was rolled back (or its rollback failed).
    Compensated {
        /// The call's key in its reply.
        key: String,
        /// The tool.
        name: String,
        /// The round the call ran in.
        round: usize,
        /// `None` when the compensation succeeded, else what went wrong.
        error: Option<String>,
    },
    /// A tool provider offered a tool the run does not take; reported once per loop and name.
    ToolSkipped {
        /// The provider's tool.
        name: String,
        /// Why, and what to do about it.
        reason: String,
    },
    /// The reply waits for decisions.
    Paused {
        /// The keys that wait.
        awaiting: Vec<String>,
    },
}
