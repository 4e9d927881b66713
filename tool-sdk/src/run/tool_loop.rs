//! The loop itself: its configuration, and what every stage of a run reports through.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::gate::Gate;
use crate::model::ChatModel;
use crate::register::{ToolProvider, ToolRegistry};
use crate::store::RunStore;

use crate::run::approve::Approver;
use crate::run::callees::Callees;
use crate::run::deciding::Deciding;
use crate::run::observe::Observer;
use crate::run::observers::Observers;
use crate::run::records::Records;
use crate::run::terminal::Terminal;
use crate::run::LoopOptions;

/// Runs a model's tool calls until it answers.
///
/// # Examples
///
/// ```
/// use tool_sdk::run::{LoopStatus, ToolLoop};
/// use tool_sdk::{tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let model = ScriptedModel::new([
///     AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", "add", r#"{"a": 2, "b": 3}"#)]),
///     AssistantMessage { text: Some("2 + 3 = 5".into()), tool_calls: vec![] },
/// ]);
/// let mut registry = ToolRegistry::new();
/// registry.register(AddTool).unwrap();
/// let agent = ToolLoop::new(model, registry);
///
/// let mut conversation = vec![Message::user("What is 2 + 3?")];
/// let outcome = agent.run(&mut conversation).await;
/// assert!(matches!(&outcome.status, LoopStatus::Answered(reply) if reply.text.as_deref() == Some("2 + 3 = 5")));
/// assert_eq!(conversation.len(), 4); // user, assistant (call), tool result, assistant (answer)
/// # }
/// ```
pub struct ToolLoop {
    /// What it calls: the model and the tools.
    pub(super) callees: Callees,
    /// How it decides: the gate, and who decides in this process.
    pub(super) deciding: Deciding,
    /// Where it records its runs.
    pub(super) records: Records,
    /// How it is watched and steered: `tracing`, then what the application registered.
    pub(super) observers: Arc<Observers>,
    /// How it behaves: rounds, concurrency, errors, limits, the model's options.
    pub(super) options: LoopOptions,
}

impl ToolLoop {
    /// A loop over `model` with the tools of `registry` and default options.
    pub fn new(model: impl ChatModel + 'static, registry: ToolRegistry) -> Self {
        Self {
            callees: Callees::new(Arc::new(model), registry),
            deciding: Deciding::default(),
            records: Records::default(),
            observers: Arc::default(),
            options: LoopOptions::default(),
        }
    }

    /// Decides on waiting calls with `approver`, in this process: [`run`](Self::run) then
    /// asks it whenever the run pauses, resumes the run with its decisions, and returns only
    /// once the run ends. Without one (the default), `run` returns the paused run, to be
    /// [resumed](Self::resume) by whoever decides, in this process or another.
    pub fn with_approver(mut self, approver: impl Approver + 'static) -> Self {
        self.deciding.approver = Some(Arc::new(approver));
        self
    }

    /// Shows each run at the terminal as it goes (the model, each call and its result, what
    /// is rolled back, how the run ends) and asks the person there about each call that waits
    /// for a decision: `Allow pay {"booking":"LIS-2"}? [y/N, e {...} to run with your
    /// arguments, or a reason]` (`e` and a JSON object allows the call with those arguments in
    /// place of the model's; a reason denies, and the model reads it). When stdin is not a terminal, no one is asked: the rule
    /// [`UNATTENDED_RULE`](crate::run::UNATTENDED_RULE) denies, and the output says so.
    ///
    /// For programs run at a terminal (examples, command-line agents); a server decides with
    /// [`with_approver`](Self::with_approver), or returns paused runs to
    /// [resume](Self::resume) later.
    pub fn with_terminal(mut self) -> Self {
        let terminal = Arc::new(Terminal::stdio());
        self.deciding.approver = Some(Arc::clone(&terminal) as Arc<dyn Approver>);
        Arc::make_mut(&mut self.observers).push_terminal(terminal, &self.options.errors);
        self
    }

    /// Keeps each run's record in `store`: compensable successes are written there before the
    /// loop goes on, paused runs wait there ([`resume`](Self::resume)), and what a
    /// crash interrupted is found there by [`recover`](Self::recover).
    pub fn with_store(mut self, store: Arc<dyn RunStore>) -> Self {
        self.records.store = Some(store);
        self
    }

    /// How long a run stays owned without renewal (default
    /// [`DEFAULT_LEASE`](crate::store::DEFAULT_LEASE)); the loop renews at a third of it,
    /// from a task of its own, so a synchronous tool holding the run's thread does not stop the
    /// renewals on a multi-threaded runtime (on a single-threaded one, make the lease outlast
    /// such tools). After a crash, other replicas wait this long before they recover the run.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.records.lease = lease;
        self
    }

    /// How long a compensating action may take when its tool declares no `timeout` (default
    /// [`DEFAULT_COMPENSATION_TIMEOUT`](crate::compensate::DEFAULT_COMPENSATION_TIMEOUT)), in
    /// the rollback at a run's end and in [`recover`](Self::recover). An action past it is
    /// reported as timed out and the rollback goes on; see
    /// [the compensate module](crate::compensate#every-compensating-action-is-bounded).
    pub fn with_compensation_timeout(mut self, timeout: Duration) -> Self {
        self.records.compensation_timeout = timeout;
        self
    }

    /// Sets the options.
    pub fn with_options(mut self, options: LoopOptions) -> Self {
        self.observers.follow(&options.errors);
        self.options = options;
        self
    }

    /// Gates calls with `gate` (default: only what tools declare).
    pub fn with_gate(mut self, gate: Gate) -> Self {
        self.deciding.gate = gate;
        self
    }

    /// Consults `provider` at every round for more tools (add-only).
    pub fn with_provider(mut self, provider: Arc<dyn ToolProvider>) -> Self {
        self.callees.providers.push(provider);
        self
    }

    /// Adds `observer` to the observers of every run, after those added before: it is told
    /// each step of a run as it happens and may word what the model reads of a failed call
    /// (see [`Observer`]). `tracing` is always the first observer; the
    /// [terminal](Self::with_terminal) is one too.
    pub fn with_observer(mut self, observer: impl Observer + 'static) -> Self {
        Arc::make_mut(&mut self.observers).push(Arc::new(observer));
        self
    }

    /// Ranks deferred tools for the built-in search tool with `strategy` (default BM25).
    pub fn with_search(
        mut self,
        strategy: impl crate::describe::search::SearchStrategy + 'static,
    ) -> Self {
        self.callees.search = Arc::new(strategy);
        self
    }

    /// The loop's registry.
    pub fn registry(&self) -> &ToolRegistry {
        &self.callees.registry
    }

    /// Where this loop's runs are kept: its store, or without one its own in-memory run store.
    pub(crate) fn run_store(&self) -> &dyn RunStore {
        self.records.run_store()
    }
}

impl fmt::Debug for ToolLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolLoop")
            .field("registry", &self.callees.registry)
            .field("gate", &self.deciding.gate)
            .field("options", &self.options)
            .field("store", &self.records.store.is_some())
            .field("lease", &self.records.lease)
            .field("observers", &self.observers.len())
            .finish_non_exhaustive()
    }
}
