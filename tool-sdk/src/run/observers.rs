//! A loop's stack of observers: `tracing` first, then each observer the application
//! registered, in order. The loop reports every step to the stack alone.

use std::sync::Arc;

use crate::define::{ProgressSink, ProgressUpdate, ToolError, ToolResult};
use crate::describe::search::EmbedError;
use crate::model::{AssistantMessage, Message, ToolCall, Usage};
use crate::run::observe::Observer;
use crate::run::terminal::Terminal;
use crate::run::traced::Traced;
use crate::run::{BudgetLimit, ErrorPolicy, LoopEvent, LoopOutcome};
use crate::store::PausedTurn;

#[derive(Clone, Default)]
pub(crate) struct Observers {
    registered: Vec<Arc<dyn Observer>>,
    /// The terminal, when it is one of them: told the loop's error policy, to say what each
    /// failure leads to.
    terminal: Option<Arc<Terminal>>,
}

impl Observers {
    pub(crate) fn push(&mut self, observer: Arc<dyn Observer>) {
        self.registered.push(observer);
    }

    /// Adds the terminal, which says what a failure leads to as `errors` has it.
    pub(crate) fn push_terminal(&mut self, terminal: Arc<Terminal>, errors: &ErrorPolicy) {
        terminal.follow(errors);
        self.push(Arc::clone(&terminal) as Arc<dyn Observer>);
        self.terminal = Some(terminal);
    }

    /// Tells the terminal, if any, the loop's error policy.
    pub(crate) fn follow(&self, errors: &ErrorPolicy) {
        if let Some(terminal) = &self.terminal {
            terminal.follow(errors);
        }
    }

    /// Whether an application watches: what only an observer reads (a call's progress, the
    /// structured form of a result) is made only then.
    pub(crate) fn watched(&self) -> bool {
        !self.registered.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.registered.len()
    }

    /// Where the progress of the call with `key` goes, when anyone watches.
    pub(crate) fn progress_sink(self: &Arc<Self>, key: &str) -> Option<Arc<dyn ProgressSink>> {
        self.watched().then(|| {
            Arc::new(CallProgress {
                observers: Arc::clone(self),
                key: key.to_owned(),
            }) as Arc<dyn ProgressSink>
        })
    }

    fn each(&self, mut report: impl FnMut(&dyn Observer)) {
        report(&Traced);
        for observer in &self.registered {
            report(&**observer);
        }
    }
}

impl Observer for Observers {
    fn on_event(&self, event: &LoopEvent) {
        self.each(|o| o.on_event(event));
    }
    fn run_started(&self, model: &str, conversation: &[Message]) {
        self.each(|o| o.run_started(model, conversation));
    }
    fn model_called(&self, round: usize) {
        self.each(|o| o.model_called(round));
    }
    fn replied(&self, reply: &AssistantMessage) {
        self.each(|o| o.replied(reply));
    }
    fn model_used(&self, round: usize, usage: &Usage) {
        self.each(|o| o.model_used(round, usage));
    }
    fn budget_exhausted(&self, limit: &BudgetLimit) {
        self.each(|o| o.budget_exhausted(limit));
    }
    fn budget_extended(&self, reached: &str) {
        self.each(|o| o.budget_extended(reached));
    }
    fn call_started(&self, key: &str, call: &ToolCall) {
        self.each(|o| o.call_started(key, call));
    }
    fn call_progress(&self, key: &str, tool: &str, update: &ProgressUpdate) {
        self.each(|o| o.call_progress(key, tool, update));
    }
    fn call_finished(&self, key: &str, call: &ToolCall, result: &ToolResult) {
        self.each(|o| o.call_finished(key, call, result));
    }
    fn result_cut(&self, key: &str, call: &ToolCall, full: &str, kept: usize) {
        self.each(|o| o.result_cut(key, call, full, kept));
    }
    fn paused(&self, turn: &PausedTurn) {
        self.each(|o| o.paused(turn));
    }
    fn compensated(&self, key: &str, name: &str, round: usize, error: Option<&str>) {
        self.each(|o| o.compensated(key, name, round, error));
    }
    fn tool_skipped(&self, name: &str, reason: &str) {
        self.each(|o| o.tool_skipped(name, reason));
    }
    fn search_fell_back(&self, key: &str, error: &EmbedError) {
        self.each(|o| o.search_fell_back(key, error));
    }
    fn run_ended(&self, outcome: &LoopOutcome) {
        self.each(|o| o.run_ended(outcome));
    }
    /// The first observer that words it.
    fn tool_error_message(&self, call: &ToolCall, error: &ToolError) -> Option<String> {
        self.registered
            .iter()
            .find_map(|observer| observer.tool_error_message(call, error))
    }
}

/// A call's progress, reported to the stack.
struct CallProgress {
    observers: Arc<Observers>,
    key: String,
}

impl ProgressSink for CallProgress {
    fn progress(&self, tool: &str, _call_id: Option<&str>, update: ProgressUpdate) {
        self.observers.call_progress(&self.key, tool, &update);
    }
}
