//! `tracing` as an observer, the first of every loop's stack: spans named as OpenTelemetry's
//! GenAI conventions name them, and an event for each step an operator looks for.
//!
//! A span wraps what it measures, so the loop enters the spans made here (the model's request)
//! and in `span.rs` (each tool call, opened by the executor); the rest are reports like any
//! observer's.

use crate::define::{ProgressUpdate, ToolResult};
use crate::describe::search::EmbedError;
use crate::model::{ToolCall, Usage};
use crate::run::observe::Observer;
use crate::run::BudgetLimit;
use crate::store::PausedTurn;

/// The `tracing` layer of a loop's observers.
pub(crate) struct Traced;

impl Traced {
    /// The span of one request to the model.
    pub(crate) fn chat_span(round: usize) -> tracing::Span {
        tracing::info_span!("gen_ai.chat", gen_ai.operation.name = "chat", round)
    }
}

// Steps traced by their spans (or by the stage that runs them, as a rollback is) are no-ops
// here: the defaults would build events no one reads.
impl Observer for Traced {
    fn model_called(&self, _round: usize) {}
    fn call_started(&self, _key: &str, _call: &ToolCall) {}
    fn call_progress(&self, _key: &str, _tool: &str, _update: &ProgressUpdate) {}
    fn call_finished(&self, _key: &str, _call: &ToolCall, _result: &ToolResult) {}
    fn paused(&self, _turn: &PausedTurn) {}
    fn compensated(&self, _key: &str, _name: &str, _round: usize, _error: Option<&str>) {}

    fn result_cut(&self, key: &str, call: &ToolCall, full: &str, kept: usize) {
        tracing::info!(
            tool = %call.name,
            key,
            bytes = full.len(),
            kept,
            "a result longer than its limit was cut for the model"
        );
    }

    fn model_used(&self, round: usize, usage: &Usage) {
        tracing::debug!(
            round,
            gen_ai.usage.input_tokens = usage.input_tokens,
            gen_ai.usage.output_tokens = usage.output_tokens,
            "the model reported its usage"
        );
    }

    fn budget_exhausted(&self, limit: &BudgetLimit) {
        tracing::warn!(limit = %limit, "the run's budget is spent: the run stops");
    }

    fn tool_skipped(&self, name: &str, reason: &str) {
        tracing::warn!(tool = %name, reason = %reason, "a provider's tool is not offered");
    }

    fn search_fell_back(&self, key: &str, error: &EmbedError) {
        tracing::warn!(key = %key, error = %error, "the tool search fell back to BM25");
    }
}
