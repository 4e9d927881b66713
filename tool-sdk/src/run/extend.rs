//! A budget a person extends: the pause that asks ([`OnExhausted::Ask`]), and what its decision
//! does when the run resumes.
//!
//! [`OnExhausted::Ask`]: crate::run::OnExhausted::Ask

use serde_json::json;

use crate::gate::Resolution;
use crate::model::{tool_call_keys, AssistantMessage, ToolCall};
use crate::run::span::Gated;
use crate::run::tools::RunTools;
use crate::run::{BudgetLimit, LoopStatus, ToolLoop};
use crate::store::{BudgetAsk, BudgetWaits, RunState, StoreError};

/// The name of the loop's own call that asks for more budget. It is never offered to the
/// model, and never enters the conversation.
const EXTEND_BUDGET: &str = "extend_budget";

/// How a resumed run goes on.
pub(super) enum Resumed {
    /// The paused reply's round, with its decisions.
    Round(AssistantMessage, Vec<Gated>),
    /// Straight to the next request: a person extended the budget.
    Rounds,
    /// Nowhere: it ends so.
    Stopped(LoopStatus),
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
        let awaiting = tool_call_keys(&reply);
        self.ask_budget(
            state,
            tools,
            reply,
            vec![EXTEND_BUDGET.to_owned()],
            awaiting,
            limit,
            BudgetWaits::Extension,
        )
        .await
    }

    /// `reply`'s calls would take the run past `limit`: none runs and the run stops, or, when
    /// the budget asks, the run pauses with every call waiting.
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
        let awaiting = tool_call_keys(&reply);
        Ok(self
            .ask_budget(
                state,
                tools,
                reply,
                tools.names(),
                awaiting,
                limit,
                BudgetWaits::Calls,
            )
            .await)
    }

    /// Pauses on `reply` with the limit it asks to extend kept in the run's state.
    #[allow(clippy::too_many_arguments)]
    async fn ask_budget(
        &self,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        offered: Vec<String>,
        awaiting: Vec<String>,
        limit: BudgetLimit,
        waits: BudgetWaits,
    ) -> LoopStatus {
        let limit_kept = match serde_json::to_value(limit) {
            Ok(kept) => kept,
            // A limit is numbers and a name: it is always written. Were it not, the run stops
            // as it would without asking.
            Err(_) => return self.over_budget(limit),
        };
        state.budget.asked = Some(BudgetAsk {
            reached: limit.to_string(),
            limit: limit_kept,
            waits,
        });
        let status = self
            .pause_offering(state, tools, reply, offered, awaiting)
            .await;
        state.budget.asked = None;
        status
    }

    /// What the decisions on a budget's pause (`ask`) do to the resumed run: an allowance
    /// extends the budget; the loop's own call then goes nowhere, and the model's calls run as
    /// decided.
    pub(super) fn budget_decided(
        &self,
        state: &mut RunState,
        ask: BudgetAsk,
        reply: AssistantMessage,
        resolutions: Vec<Gated>,
    ) -> Resumed {
        let allowed = resolutions
            .iter()
            .any(|gated| matches!(gated.resolution, Resolution::Run));
        if allowed {
            state.budget.extensions = state.budget.extensions.saturating_add(1);
            tracing::info!(run = %state.id, reached = %ask.reached, extensions = state.budget.extensions, "a person extended the run's budget");
        }
        match (ask.waits, allowed) {
            (BudgetWaits::Calls, _) => Resumed::Round(reply, resolutions),
            (BudgetWaits::Extension, true) => Resumed::Rounds,
            (BudgetWaits::Extension, false) => {
                match serde_json::from_value::<BudgetLimit>(ask.limit) {
                    Ok(limit) => Resumed::Stopped(self.over_budget(limit)),
                    Err(error) => {
                        state.store_error = Some(Box::new(StoreError::Backend(format!(
                            "the limit the paused run asked to extend cannot be read: {error}"
                        ))));
                        Resumed::Stopped(LoopStatus::StoreFailed)
                    }
                }
            }
        }
    }
}
