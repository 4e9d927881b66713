//! A budget a person extends: the pause that asks ([`OnExhausted::Ask`]), and what its decision
//! does when the run resumes.
//!
//! [`OnExhausted::Ask`]: crate::run::OnExhausted::Ask

use serde_json::json;

use crate::gate::Resolution;
use crate::model::{tool_call_keys, AssistantMessage, ToolCall};
use crate::run::observe::Observer as _;
use crate::run::span::Gated;
use crate::run::tools::RunTools;
use crate::run::{BudgetLimit, LoopStatus, ToolLoop};
use crate::store::{BudgetAsk, BudgetMark, BudgetWaits, RunState, StoreError};

/// The name of the loop's own call that asks for more budget. No tool can be named so (a tool's
/// name has no `.`): it is never offered to the model, never found in a registry, and never
/// enters the conversation.
pub(crate) const EXTEND_BUDGET: &str = "tool_sdk.extend_budget";

/// How a resumed run goes on.
pub(super) enum Resumed {
    /// The paused reply's round, with its decisions, then the rounds that follow.
    Round(AssistantMessage, Vec<Gated>),
    /// The paused reply's round (every call of it denied), then the run's end, so.
    LastRound(AssistantMessage, Vec<Gated>, LoopStatus),
    /// Straight to the next request: a person extended the budget.
    Rounds,
    /// Nowhere: it ends so.
    Stopped(LoopStatus),
}

/// A pause a budget asks for: on which reply, offering which tools, waiting for which calls.
struct Ask {
    reply: AssistantMessage,
    offered: Vec<String>,
    awaiting: Vec<String>,
    waits: BudgetWaits,
}

impl ToolLoop {
    /// The run reached `limit` before a request: it stops, or, when the budget asks, pauses on
    /// the loop's own call for a person to extend it.
    pub(super) async fn exhausted(
        &self,
        state: &mut RunState,
        tools: &RunTools<'_>,
        limit: BudgetLimit,
    ) -> LoopStatus {
        if !self.options.budget.asks_about(&limit) {
            return self.over_budget(limit);
        }
        let call = ToolCall::new(
            "tool_sdk_budget",
            EXTEND_BUDGET,
            json!({ "reached": limit.to_string() }).to_string(),
        );
        let reply = AssistantMessage::with_tool_calls(vec![call]);
        let ask = Ask {
            awaiting: tool_call_keys(&reply),
            reply,
            offered: vec![EXTEND_BUDGET.to_owned()],
            waits: BudgetWaits::Extension,
        };
        self.ask_budget(state, tools, ask, limit).await
    }

    /// `reply`'s calls would take the run past `limit`: none runs and the run stops (`Err`, with
    /// the reply back), or, when the budget asks, the run pauses with each call that can run
    /// waiting for a person.
    pub(super) async fn exhausted_by_calls(
        &self,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        limit: BudgetLimit,
    ) -> Result<LoopStatus, (AssistantMessage, BudgetLimit)> {
        if !self.options.budget.asks_about(&limit) {
            return Err((reply, limit));
        }
        // A person is asked about what could run: an unknown tool, or arguments it does not
        // take, is answered so whatever is decided.
        let awaiting = self.deciding.runnable(tools, &reply);
        if awaiting.is_empty() {
            return Err((reply, limit));
        }
        let ask = Ask {
            reply,
            offered: tools.names(),
            awaiting,
            waits: BudgetWaits::Calls,
        };
        Ok(self.ask_budget(state, tools, ask, limit).await)
    }

    /// Pauses on the ask's reply with the limit it asks to extend kept in the run's state.
    async fn ask_budget(
        &self,
        state: &mut RunState,
        tools: &RunTools<'_>,
        ask: Ask,
        limit: BudgetLimit,
    ) -> LoopStatus {
        // `asks_about` let through only limits whose numbers are finite, which JSON writes as
        // they are; a limit that could not be written would stop the run as without asking.
        let kept = match serde_json::to_value(limit) {
            Ok(kept) => kept,
            Err(_) => return self.over_budget(limit),
        };
        self.observers.budget_exhausted(&limit);
        state.budget.asked = Some(BudgetAsk {
            reached: limit.to_string(),
            limit: kept,
            waits: ask.waits,
        });
        let status = self
            .pause_offering(state, tools, ask.reply, ask.offered, ask.awaiting)
            .await;
        state.budget.asked = None;
        status
    }

    /// What the decisions on a budget's pause (`ask`) do to the resumed run. An allowance
    /// grants the run a whole budget again, counted from where it stands (the calls allowed
    /// are the person's, not the new budget's); the loop's own call then goes nowhere, and the
    /// model's calls run as decided. A denial of everything ends the run at the limit, with the
    /// model's calls answered as denied.
    pub(super) fn budget_decided(
        &self,
        state: &mut RunState,
        ask: BudgetAsk,
        reply: AssistantMessage,
        resolutions: Vec<Gated>,
    ) -> Resumed {
        let allowed = resolutions
            .iter()
            .any(|gated| matches!(gated.resolution, Resolution::Run | Resolution::RunEdited(_)));
        if allowed {
            let calls = match ask.waits {
                BudgetWaits::Calls => reply.tool_calls.len(),
                BudgetWaits::Extension => 0,
            };
            state.budget.since = BudgetMark {
                usage: state.usage,
                calls: state.calls.len().saturating_add(calls),
            };
            self.observers.budget_extended(&ask.reached);
            return match ask.waits {
                BudgetWaits::Calls => Resumed::Round(reply, resolutions),
                BudgetWaits::Extension => Resumed::Rounds,
            };
        }
        let limit = match serde_json::from_value::<BudgetLimit>(ask.limit) {
            Ok(limit) => limit,
            Err(error) => {
                state.store_error = Some(Box::new(StoreError::Backend(format!(
                    "the limit the paused run asked to extend cannot be read: {error}"
                ))));
                return Resumed::Stopped(LoopStatus::StoreFailed);
            }
        };
        // The observers were told of the limit when the run paused on it.
        let status = LoopStatus::BudgetExhausted(limit);
        match ask.waits {
            BudgetWaits::Calls => Resumed::LastRound(reply, resolutions, status),
            BudgetWaits::Extension => Resumed::Stopped(status),
        }
    }
}
