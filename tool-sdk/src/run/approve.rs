//! Decisions made in this process, while a run waits: a person at a terminal, a dialog, a
//! rule of the application's.

use std::future::Future;
use std::pin::Pin;

use crate::gate::ToolCallDecisions;
use crate::store::PausedTurn;

/// What an [`Approver`] returns: its decisions, when it has them.
pub type ApproverFuture<'a> = Pin<Box<dyn Future<Output = ToolCallDecisions> + Send + 'a>>;

/// Decides on the calls a paused run waits for, so that [`ToolLoop::run`] resumes the run
/// itself instead of returning it paused ([`ToolLoop::with_approver`]).
///
/// The decisions go through the same checks as those handed to [`ToolLoop::resume`]: an
/// allowance binds to the call's arguments, and decisions that do not fit leave the run
/// paused (the run then returns paused, and says why in the log).
///
/// A closure from the paused turn to decisions is an approver:
///
/// ```
/// use tool_sdk::run::ToolLoop;
/// use tool_sdk::store::PausedTurn;
/// # fn agent() -> ToolLoop { ToolLoop::new(tool_sdk::ScriptedModel::new([]), tool_sdk::ToolRegistry::new()) }
///
/// // Allows every waiting call whose arguments mention no amount; denies the others.
/// let agent = agent().with_approver(|paused: &PausedTurn| {
///     let mut decide = paused.decide();
///     for pending in paused.calls().filter(|pending| pending.awaiting) {
///         decide = if pending.call.arguments.contains("amount") {
///             decide.deny(&pending.key, "amounts need a person")
///         } else {
///             decide.allow(&pending.key)
///         };
///     }
///     decide.build()
/// });
/// ```
///
/// [`ToolLoop::run`]: crate::run::ToolLoop::run
/// [`ToolLoop::resume`]: crate::run::ToolLoop::resume
/// [`ToolLoop::with_approver`]: crate::run::ToolLoop::with_approver
pub trait Approver: Send + Sync {
    /// The decisions on `paused`'s waiting calls.
    fn decide<'a>(&'a self, paused: &'a PausedTurn) -> ApproverFuture<'a>;
}

impl<F> Approver for F
where
    F: Fn(&PausedTurn) -> ToolCallDecisions + Send + Sync,
{
    fn decide<'a>(&'a self, paused: &'a PausedTurn) -> ApproverFuture<'a> {
        let decisions = self(paused);
        Box::pin(std::future::ready(decisions))
    }
}
