//! What a run's budget leaves in its state across a pause: how often a person extended it, and
//! the limit a pause asks a person to extend. Kept (and sealed) with the run like the rest of
//! its state, so a decision extends the budget of the run it was made for, once.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The budget's part of a run's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BudgetState {
    /// How many times a person extended the budget: each time grants the run its limits again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) extensions: u32,
    /// The limit the run's pause asks a person to extend, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) asked: Option<BudgetAsk>,
}

impl BudgetState {
    pub(crate) fn is_untouched(&self) -> bool {
        self.extensions == 0 && self.asked.is_none()
    }
}

fn is_zero(extensions: &u32) -> bool {
    *extensions == 0
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
    /// The model's reply, whose calls the budget has no room for: allowed, they run.
    Calls,
}
