//! The gate alone, without a loop: [`Gate::execute`] and [`Gate::resume`] decide as the gate
//! does anywhere, and run what is allowed through the one executor, in reply order.

use std::collections::HashSet;

use crate::gate::ToolCallDecisions;
use crate::gate::{CallOutcome, CallResult, Gate, GateError, GateOutcome, Kept, Resolution};
use crate::model::{tool_call_keys, AssistantMessage};
use crate::register::ToolRegistry;
use crate::run::execute::Executor;
use crate::run::span::Gated;
use crate::run::Concurrency;

impl Gate {
    /// Runs the calls of `reply` in order, or pauses it without running any when a call needs
    /// a decision. `request_tools` are the names of the tools the request offered (such as
    /// [`ToolRegistry::names`]): an allowed call of another tool never runs.
    pub async fn execute(
        &self,
        registry: &ToolRegistry,
        request_tools: impl IntoIterator<Item = impl AsRef<str>>,
        reply: &AssistantMessage,
    ) -> GateOutcome {
        let request_tools: Vec<_> = request_tools.into_iter().collect();
        if let Some(paused) = self.check(registry, &request_tools, reply) {
            return GateOutcome::Paused(paused);
        }
        let offered: HashSet<&str> = request_tools.iter().map(AsRef::as_ref).collect();
        let resolutions = reply
            .tool_calls
            .iter()
            .map(|call| {
                Gated::undecided(if offered.contains(call.name.as_str()) {
                    Resolution::Run
                } else {
                    Resolution::NotOffered
                })
            })
            .collect();
        GateOutcome::Completed(run_decided(registry, reply, resolutions).await)
    }

    /// Resumes a paused turn from where it was kept: the decisions are checked against the
    /// genuine copy (so decisions that do not fit can be corrected and sent again), the copy is
    /// used up (of two concurrent resumes, in any processes, exactly one gets it), and the
    /// allowed calls run, in reply order.
    pub async fn resume(
        &self,
        registry: &ToolRegistry,
        kept: Kept<'_>,
        decisions: &ToolCallDecisions,
    ) -> Result<Vec<CallOutcome>, GateError> {
        let check = |call: &crate::model::ToolCall| registry.check(&call.name, &call.arguments);
        let (turn, resolutions) = self.take_kept(kept, decisions, &check).await?;
        let gated = Gated::decided(&turn, resolutions, decisions);
        let outcomes = run_decided(registry, turn.reply(), gated).await;
        if let Kept::Stored { store, id } = kept {
            // The turn is used up either way; a run left unfinished has nothing recorded to
            // roll back, and recovery only ends it.
            if let Err(error) = store.finish(id).await {
                tracing::warn!(run = %id, %error, "the resumed turn's end was not recorded");
            }
        }
        Ok(outcomes)
    }
}

/// Runs the calls of `reply` as resolved, in order, through the registry.
async fn run_decided(
    registry: &ToolRegistry,
    reply: &AssistantMessage,
    resolutions: Vec<Gated>,
) -> Vec<CallOutcome> {
    let keys = tool_call_keys(reply);
    let results: Vec<CallResult> = Executor::plain(registry)
        .reply(
            &reply.tool_calls,
            &keys,
            resolutions,
            Concurrency::Sequential,
        )
        .await;
    keys.into_iter()
        .zip(&reply.tool_calls)
        .zip(results)
        .map(|((key, call), result)| CallOutcome {
            key,
            call: call.clone(),
            result,
        })
        .collect()
}
