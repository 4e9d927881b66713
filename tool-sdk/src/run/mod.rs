//! The tool-calling loop: send the conversation, run the reply's calls, append their results,
//! and repeat until the model answers without calls; with decision gating, compensation of what
//! already ran when a later step fails, and cancellation.
#![doc = include_str!("guide.md")]

mod approve;
mod budget;
mod callees;
mod conversation;
mod decided;
mod deciding;
mod drive;
mod durable;
mod end;
mod entry;
mod events;
mod execute;
mod expire;
mod extend;
mod history;
mod observe;
mod observers;
mod options;
mod records;
mod recover;
mod result_limit;
mod round;
mod rounds;
mod schedule;
mod setup;
mod span;
mod stream;
mod terminal;
mod tools;
mod traced;

mod outcome;
mod tool_loop;

pub use approve::{Approver, ApproverFuture};
pub use budget::{Budget, BudgetLimit, OnExhausted};
pub use conversation::Conversation;
pub use entry::{Resume, Run, RunOptions, Start};
pub use events::LoopEvent;
#[cfg(feature = "mcp")]
pub(crate) use execute::Executor;
pub use expire::ExpiredRun;
#[cfg(feature = "approvals")]
pub(crate) use history::rolled_back;
pub use observe::{event_fn, EventFn, Observer};
pub use options::{
    Concurrency, ErrorAction, ErrorPolicy, LoopOptions, DEFAULT_DEFER_THRESHOLD,
    DEFAULT_MAX_ROUNDS, DEFAULT_RESULT_LIMIT,
};
pub use outcome::{LoopOutcome, LoopStatus};
pub use recover::RecoveredRun;
pub use setup::SetupError;
#[cfg(feature = "mcp")]
pub(crate) use span::Gated;
pub use terminal::UNATTENDED_RULE;
pub use tool_loop::ToolLoop;

/// Cancels a run ([`Run::with_cancel`]), and is handed to tools in their context.
pub use tokio_util::sync::CancellationToken;
