//! What a run's budget leaves in its state across a pause: where the budget a person last
//! granted starts, and the limit a pause asks a person to extend. Kept with the run like the
//! rest of its state (and sealed with it where the store seals rows), so a decision extends
//! the budget of the run it was made for, once.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::Usage;

/// The budget's part of a run's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BudgetState {
    /// What the run had used when a person last extended its budget: its limits count from
    /// there (from nothing before any extension).
    #[serde(default, skip_serializing_if = "BudgetMark::is_start")]
    pub(crate) since: BudgetMark,
    /// The limit the run's pause asks a person to extend, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) asked: Option<BudgetAsk>,
}

impl BudgetState {
    pub(crate) fn is_untouched(&self) -> bool {
        self.since.is_start() && self.asked.is_none()
    }
}

/// What a run had used at a point: the tokens the model reported and the calls it made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BudgetMark {
    #[serde(default, skip_serializing_if = "Usage::is_zero")]
    pub(crate) usage: Usage,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) calls: usize,
}

impl BudgetMark {
    fn is_start(&self) -> bool {
        self.usage.is_zero() && self.calls == 0
    }
}

fn is_zero(calls: &usize) -> bool {
    *calls == 0
}

/// A pause that asks a person to extend the run's budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BudgetAsk {
    /// The limit reached, as a person reads it (`1200 tokens used of 1000`).
    pub(crate) reached: String,
    /// The limit reached, as the run reads it back when the decision comes: the run stage's
    /// own value, which the store keeps without reading.
    pub(crate) limit: Value,
    /// Whose reply waits.
    pub(crate) waits: BudgetWaits,
}

/// Whose reply a budget's pause holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BudgetWaits {
    /// The loop's own call asking for more (the limit was reached before a request): it never
    /// enters the conversation.
    Extension,
    /// The model's reply, whose calls the budget has no room for: the allowed ones run.
    Calls,
}
