//! What the loop reports as it goes, to an optional listener and as `tracing` events.

use serde_json::Value;

use crate::define::ProgressUpdate;
use crate::describe::search::EmbedError;
use crate::model::{ToolResultStatus, Usage};
use crate::run::BudgetLimit;

/// One step of a run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LoopEvent {
    /// A request went to the model.
    ModelCalled {
        /// The round (1 for the first request).
        round: usize,
    },
    /// The model reported the tokens of a request.
    ModelUsage {
        /// The request's round.
        round: usize,
        /// What it reported.
        usage: Usage,
    },
    /// A limit of the run's budget was reached: the run stops
    /// ([`LoopStatus::BudgetExhausted`](crate::run::LoopStatus::BudgetExhausted)), or, with
    /// [`OnExhausted::Ask`](crate::run::OnExhausted::Ask), pauses for a person to extend it.
    BudgetExhausted {
        /// Which limit, what was used and what was allowed.
        limit: BudgetLimit,
    },
    /// A person extended the run's budget: it goes on with its limits granted again.
    BudgetExtended {
        /// The limit that was reached, as the pause said it.
        reached: String,
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
        /// The structured form of a successful call's output
        /// ([`ToolOutput::structured`](crate::define::ToolOutput::structured)): a JSON result,
        /// or an MCP server's `structuredContent`; `None` for text and for failures.
        structured: Option<Value>,
    },
    /// A call's result was longer than its limit: the model read it cut
    /// ([`LoopOptions::result_limit`](crate::run::LoopOptions::result_limit)). The whole result
    /// is here.
    ResultCut {
        /// The call's key in its reply.
        key: String,
        /// The tool.
        name: String,
        /// The result as the tool gave it.
        full: String,
        /// Bytes of it the model read (its head and its tail).
        kept: usize,
    },
    /// A running call reported progress through its context
    /// ([`Progress`](crate::define::Progress)): its own, or an MCP server's
    /// `notifications/progress` for a consumed tool.
    ToolProgress {
        /// The call's key in its reply.
        key: String,
        /// The tool.
        name: String,
        /// How far it is.
        update: ProgressUpdate,
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
    /// A call of the built-in search was ranked by BM25 alone: the strategy's embedder failed,
    /// or was slower than its timeout
    /// ([`SearchResult::fell_back`](crate::describe::search::SearchResult::fell_back)). The
    /// model got BM25's results; the run goes on.
    SearchFellBack {
        /// The search call's key in its reply.
        key: String,
        /// Why the embedder could not serve it.
        error: EmbedError,
    },
    /// The reply waits for decisions.
    Paused {
        /// The keys that wait.
        awaiting: Vec<String>,
    },
}
