//! The one way a run is watched and steered: an [`Observer`], registered with
//! [`ToolLoop::with_observer`](crate::run::ToolLoop::with_observer). The terminal, the event
//! stream ([`event_fn`]) and `tracing` are observers too; an application stacks as many as it
//! needs.

use std::sync::Arc;

use crate::define::{ProgressUpdate, ToolError, ToolOutput, ToolResult};
use crate::describe::search::EmbedError;
use crate::model::{AssistantMessage, Message, ToolCall, ToolResultStatus, Usage};
use crate::run::{BudgetLimit, LoopEvent, LoopOutcome};
use crate::store::PausedTurn;

/// Watches a run as it goes, and steers what the model reads of a failed call.
///
/// Every method has a default: an observer overrides what it needs. The defaults of the steps
/// that have a [`LoopEvent`] report them to [`on_event`](Self::on_event), so an observer that
/// only wants the event stream implements that one method ([`event_fn`] makes one of a
/// closure). The typed methods hand over what the step borrows (the call with its
/// arguments, the tool's result), so an observer that overrides them copies nothing.
///
/// Observers are called in the order they were registered, on the run's task: a slow one slows
/// the run. What an observer does cannot fail the run.
///
/// # Examples
///
/// An audit log of every call and how it ended, and a wording of errors for the model:
///
/// ```
/// use std::sync::{Arc, Mutex};
///
/// use tool_sdk::run::{Observer, ToolLoop};
/// use tool_sdk::{tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};
/// use tool_sdk::define::{ToolError, ToolResult};
///
/// /// Divides two numbers.
/// #[tool]
/// fn divide(a: i64, b: i64) -> Result<i64, String> {
///     a.checked_div(b).ok_or_else(|| "division by zero".to_owned())
/// }
///
/// #[derive(Default)]
/// struct Audit(Mutex<Vec<String>>);
///
/// impl Observer for Audit {
///     fn call_finished(&self, _key: &str, call: &ToolCall, result: &ToolResult) {
///         let line = format!("{} {} -> {}", call.name, call.arguments, result.is_ok());
///         self.0.lock().unwrap().push(line);
///     }
///
///     fn tool_error_message(&self, call: &ToolCall, error: &ToolError) -> Option<String> {
///         Some(format!("`{}` failed ({error}); try other numbers.", call.name))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let model = ScriptedModel::new([
///     AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", "divide", r#"{"a": 1, "b": 0}"#)]),
///     AssistantMessage { text: Some("Cannot.".into()), tool_calls: vec![] },
/// ]);
/// let mut registry = ToolRegistry::new();
/// registry.register(DivideTool).unwrap();
/// let audit = Arc::new(Audit::default());
/// let agent = ToolLoop::new(model, registry).with_observer(Arc::clone(&audit));
///
/// let mut conversation = vec![Message::user("1 / 0?")];
/// agent.run(&mut conversation).await;
/// assert_eq!(*audit.0.lock().unwrap(), [r#"divide {"a": 1, "b": 0} -> false"#]);
/// let Message::Tool(result) = &conversation[2] else { panic!() };
/// assert!(result.content.ends_with("try other numbers."));
/// # }
/// ```
pub trait Observer: Send + Sync {
    /// Each step of a run that has a [`LoopEvent`], unless its typed method is overridden.
    fn on_event(&self, event: &LoopEvent) {
        let _ = event;
    }

    /// A run starts with `model` (its description) on `conversation`.
    fn run_started(&self, model: &str, conversation: &[Message]) {
        let _ = (model, conversation);
    }

    /// A request went to the model: round 1 is the first.
    fn model_called(&self, round: usize) {
        self.on_event(&LoopEvent::ModelCalled { round });
    }

    /// The model replied (whole, or once a streamed reply is complete).
    fn replied(&self, reply: &AssistantMessage) {
        let _ = reply;
    }

    /// The model reported `usage` for the request of `round` (before its reply is told).
    fn model_used(&self, round: usize, usage: &Usage) {
        self.on_event(&LoopEvent::ModelUsage {
            round,
            usage: *usage,
        });
    }

    /// A limit of the run's budget was reached: the run stops, or, with
    /// [`OnExhausted::Ask`](crate::run::OnExhausted::Ask), pauses for a person to extend it.
    fn budget_exhausted(&self, limit: &BudgetLimit) {
        self.on_event(&LoopEvent::BudgetExhausted { limit: *limit });
    }

    /// A person extended the run's budget, spent as `reached` says
    /// ([`PausedTurn::budget_reached`](crate::store::PausedTurn::budget_reached)): the run goes
    /// on with its limits granted again.
    fn budget_extended(&self, reached: &str) {
        self.on_event(&LoopEvent::BudgetExtended {
            reached: reached.to_owned(),
        });
    }

    /// A call starts, with the arguments the tool receives.
    fn call_started(&self, key: &str, call: &ToolCall) {
        self.on_event(&LoopEvent::ToolStarted {
            key: key.to_owned(),
            name: call.name.clone(),
        });
    }

    /// A running call reported progress ([`Progress`](crate::define::Progress)).
    fn call_progress(&self, key: &str, tool: &str, update: &ProgressUpdate) {
        self.on_event(&LoopEvent::ToolProgress {
            key: key.to_owned(),
            name: tool.to_owned(),
            update: update.clone(),
        });
    }

    /// A call ended with `result`, before the model reads it.
    fn call_finished(&self, key: &str, call: &ToolCall, result: &ToolResult) {
        self.on_event(&LoopEvent::ToolFinished {
            key: key.to_owned(),
            name: call.name.clone(),
            status: if result.is_ok() {
                ToolResultStatus::Success
            } else {
                ToolResultStatus::Error
            },
            structured: result.as_ref().ok().and_then(ToolOutput::structured),
        });
    }

    /// A result longer than its limit was cut for the model; `full` is all of it.
    fn result_cut(&self, key: &str, call: &ToolCall, full: &str, kept: usize) {
        self.on_event(&LoopEvent::ResultCut {
            key: key.to_owned(),
            name: call.name.clone(),
            full: full.to_owned(),
            kept,
        });
    }

    /// The run paused: `turn` waits for decisions on its
    /// [`awaiting`](PausedTurn::awaiting) calls, kept where a resume takes it (told once it
    /// is kept, so that whoever is told can find it).
    fn paused(&self, turn: &PausedTurn) {
        self.on_event(&LoopEvent::Paused {
            awaiting: turn.awaiting().to_vec(),
        });
    }

    /// A success of `round` was rolled back (`error` is `None`), or its rollback failed.
    fn compensated(&self, key: &str, name: &str, round: usize, error: Option<&str>) {
        self.on_event(&LoopEvent::Compensated {
            key: key.to_owned(),
            name: name.to_owned(),
            round,
            error: error.map(str::to_owned),
        });
    }

    /// A tool provider offered a tool the run does not take (once per loop and name).
    fn tool_skipped(&self, name: &str, reason: &str) {
        self.on_event(&LoopEvent::ToolSkipped {
            name: name.to_owned(),
            reason: reason.to_owned(),
        });
    }

    /// The search of the call with this key was ranked by BM25 alone: the strategy's
    /// embedder failed with `error`, or was slower than its timeout. The run goes on.
    fn search_fell_back(&self, key: &str, error: &EmbedError) {
        self.on_event(&LoopEvent::SearchFellBack {
            key: key.to_owned(),
            error: error.clone(),
        });
    }

    /// The run ended, or paused, with `outcome`.
    fn run_ended(&self, outcome: &LoopOutcome) {
        let _ = outcome;
    }

    /// What the model reads for a failed call: `Some` words it, `None` leaves it to the next
    /// observer, and at the end of the stack to
    /// [`ToolError::model_message`](crate::define::ToolError::model_message). Argument errors
    /// and execution errors alike; matching the error's variant tells them apart.
    fn tool_error_message(&self, call: &ToolCall, error: &ToolError) -> Option<String> {
        let _ = (call, error);
        None
    }
}

/// An observer of the event stream alone, made of a closure: see [`event_fn`].
#[derive(Clone, Copy)]
pub struct EventFn<F>(F);

/// An observer that hands every [`LoopEvent`] to `f`.
///
/// ```
/// use std::sync::{Arc, Mutex};
///
/// use tool_sdk::run::{event_fn, LoopEvent, ToolLoop};
/// use tool_sdk::{ScriptedModel, ToolRegistry};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
///     .with_observer(event_fn(move |event: &LoopEvent| log.lock().unwrap().push(event.clone())));
/// ```
pub fn event_fn<F>(f: F) -> EventFn<F>
where
    F: Fn(&LoopEvent) + Send + Sync,
{
    EventFn(f)
}

impl<F> Observer for EventFn<F>
where
    F: Fn(&LoopEvent) + Send + Sync,
{
    fn on_event(&self, event: &LoopEvent) {
        (self.0)(event);
    }
}

impl<F> std::fmt::Debug for EventFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventFn")
    }
}

/// A shared observer observes.
impl<O: Observer + ?Sized> Observer for Arc<O> {
    fn on_event(&self, event: &LoopEvent) {
        (**self).on_event(event);
    }
    fn run_started(&self, model: &str, conversation: &[Message]) {
        (**self).run_started(model, conversation);
    }
    fn model_called(&self, round: usize) {
        (**self).model_called(round);
    }
    fn replied(&self, reply: &AssistantMessage) {
        (**self).replied(reply);
    }
    fn model_used(&self, round: usize, usage: &Usage) {
        (**self).model_used(round, usage);
    }
    fn budget_exhausted(&self, limit: &BudgetLimit) {
        (**self).budget_exhausted(limit);
    }
    fn budget_extended(&self, reached: &str) {
        (**self).budget_extended(reached);
    }
    fn call_started(&self, key: &str, call: &ToolCall) {
        (**self).call_started(key, call);
    }
    fn call_progress(&self, key: &str, tool: &str, update: &ProgressUpdate) {
        (**self).call_progress(key, tool, update);
    }
    fn call_finished(&self, key: &str, call: &ToolCall, result: &ToolResult) {
        (**self).call_finished(key, call, result);
    }
    fn result_cut(&self, key: &str, call: &ToolCall, full: &str, kept: usize) {
        (**self).result_cut(key, call, full, kept);
    }
    fn paused(&self, turn: &PausedTurn) {
        (**self).paused(turn);
    }
    fn compensated(&self, key: &str, name: &str, round: usize, error: Option<&str>) {
        (**self).compensated(key, name, round, error);
    }
    fn tool_skipped(&self, name: &str, reason: &str) {
        (**self).tool_skipped(name, reason);
    }
    fn search_fell_back(&self, key: &str, error: &EmbedError) {
        (**self).search_fell_back(key, error);
    }
    fn run_ended(&self, outcome: &LoopOutcome) {
        (**self).run_ended(outcome);
    }
    fn tool_error_message(&self, call: &ToolCall, error: &ToolError) -> Option<String> {
        (**self).tool_error_message(call, error)
    }
}
