//! How a loop decides: its gate, and who decides in this process while a run waits.

use std::sync::Arc;

use crate::define::Confirm;
use crate::gate::Gate;
use crate::model::{tool_call_keys, AssistantMessage};
use crate::run::approve::Approver;
use crate::run::tools::RunTools;

#[derive(Default)]
pub(crate) struct Deciding {
    pub(crate) gate: Gate,
    /// Decides on waiting calls in this process, so that a run resumes itself.
    pub(crate) approver: Option<Arc<dyn Approver>>,
}

impl Deciding {
    /// Whether any call could need a decision: the gate's policy names something, or a tool
    /// declares confirmation.
    pub(crate) fn may_pause(&self, tools: &RunTools<'_>) -> bool {
        !self.gate.policy().is_empty()
            || tools
                .all_definitions()
                .iter()
                .any(|d| d.options.confirm != Confirm::Never)
    }

    /// Keys of calls needing a decision, looking each tool up among all the run's tools.
    pub(crate) fn awaiting(&self, tools: &RunTools<'_>, reply: &AssistantMessage) -> Vec<String> {
        self.gate.awaiting_among(
            reply,
            |name| tools.get(name).map(|tool| &**tool),
            |call| {
                tools
                    .registry_for(&call.name)
                    .check(&call.name, &call.arguments)
            },
        )
    }

    /// Keys of the calls of `reply` that can run: of a tool of the run, with arguments it
    /// takes. A person asked about a reply as a whole (its budget spent) is asked about these.
    pub(crate) fn runnable(&self, tools: &RunTools<'_>, reply: &AssistantMessage) -> Vec<String> {
        tool_call_keys(reply)
            .into_iter()
            .zip(&reply.tool_calls)
            .filter(|(_, call)| {
                tools.get(&call.name).is_some()
                    && tools
                        .registry_for(&call.name)
                        .check(&call.name, &call.arguments)
                        .is_ok()
            })
            .map(|(key, _)| key)
            .collect()
    }
}
