//! The loop itself: its configuration, and what every stage of a run reports through.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::gate::Gate;
use crate::model::{ChatModel, ToolCall};
use crate::register::{ToolProvider, ToolRegistry};
use crate::store::{InMemoryRunStore, RunStore};

use crate::run::approve::Approver;
use crate::run::terminal::Terminal;
use crate::run::tools::RunTools;
use crate::run::{LoopEvent, LoopOptions};

pub(crate) type Listener = dyn Fn(&LoopEvent) + Send + Sync;
type BeforeHook = dyn Fn(&ToolCall) + Send + Sync;
type AfterHook = dyn Fn(&ToolCall, &crate::define::ToolResult) + Send + Sync;
type ErrorHandler = dyn Fn(&ToolCall, &crate::define::ToolError) -> String + Send + Sync;

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
    pub(super) model: Arc<dyn ChatModel>,
    pub(super) registry: ToolRegistry,
    pub(super) providers: Vec<Arc<dyn ToolProvider>>,
    pub(super) gate: Gate,
    pub(super) options: LoopOptions,
    pub(super) listener: Option<Arc<Listener>>,
    pub(super) before: Option<Arc<BeforeHook>>,
    pub(super) after: Option<Arc<AfterHook>>,
    pub(super) error_handler: Option<Arc<ErrorHandler>>,
    pub(super) search: Arc<dyn crate::describe::search::SearchStrategy>,
    pub(super) store: Option<Arc<dyn RunStore>>,
    pub(super) lease: Duration,
    pub(super) compensation_timeout: Duration,
    /// Without a store, where the runs this loop paused wait, by id: what a resume runs is the
    /// copy kept here, never the value handed back, and each is taken once.
    pub(super) parked: InMemoryRunStore,
    /// Providers' tools reported as not taken, each once.
    pub(super) skipped: std::sync::Mutex<std::collections::HashSet<String>>,
    /// Each tool's parameters in the model's dialect, lowered once for every run.
    pub(super) schemas: crate::describe::LoweredSchemas,
    /// Decides on waiting calls in this process, so that a run resumes itself.
    pub(super) approver: Option<Arc<dyn Approver>>,
    /// Where each step of a run is shown as it goes.
    pub(super) terminal: Option<Arc<Terminal>>,
}

impl ToolLoop {
    /// A loop over `model` with the tools of `registry` and default options.
    pub fn new(model: impl ChatModel + 'static, registry: ToolRegistry) -> Self {
        Self {
            model: Arc::new(model),
            registry,
            providers: Vec::new(),
            gate: Gate::default(),
            options: LoopOptions::default(),
            listener: None,
            before: None,
            after: None,
            error_handler: None,
            search: Arc::new(crate::describe::search::Bm25Search::new()),
            store: None,
            lease: crate::store::DEFAULT_LEASE,
            compensation_timeout: crate::compensate::DEFAULT_COMPENSATION_TIMEOUT,
            parked: InMemoryRunStore::new(),
            skipped: std::sync::Mutex::default(),
            schemas: crate::describe::LoweredSchemas::default(),
            approver: None,
            terminal: None,
        }
    }

    /// Decides on waiting calls with `approver`, in this process: [`run`](Self::run) then
    /// asks it whenever the run pauses, resumes the run with its decisions, and returns only
    /// once the run ends. Without one (the default), `run` returns the paused run, to be
    /// [resumed](Self::resume) by whoever decides, in this process or another.
    pub fn with_approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Shows each run at the terminal as it goes (the model, each call and its result, what
    /// is rolled back, how the run ends) and asks the person there about each call that waits
    /// for a decision: `Allow pay {"booking":"LIS-2"}? [y/N, or a reason]` (a reason denies,
    /// and the model reads it). When stdin is not a terminal, no one is asked: the rule
    /// [`UNATTENDED_RULE`](crate::run::UNATTENDED_RULE) denies, and the output says so.
    ///
    /// For programs run at a terminal (examples, command-line agents); a server decides with
    /// [`with_approver`](Self::with_approver), or returns paused runs to
    /// [resume](Self::resume) later.
    pub fn with_terminal(mut self) -> Self {
        let terminal = Arc::new(Terminal::stdio());
        self.approver = Some(Arc::clone(&terminal) as Arc<dyn Approver>);
        self.terminal = Some(terminal);
        self
    }

    /// Keeps each run's record in `store`: compensable successes are written there before the
    /// loop goes on, paused runs wait there ([`resume`](Self::resume)), and what a
    /// crash interrupted is found there by [`recover`](Self::recover).
    pub fn with_store(mut self, store: Arc<dyn RunStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// How long a run stays owned without renewal (default
    /// [`DEFAULT_LEASE`](crate::store::DEFAULT_LEASE)); the loop renews at a third of it,
    /// from a task of its own, so a synchronous tool holding the run's thread does not stop the
    /// renewals on a multi-threaded runtime (on a single-threaded one, make the lease outlast
    /// such tools). After a crash, other replicas wait this long before they recover the run.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// How long a compensating action may take when its tool declares no `timeout` (default
    /// [`DEFAULT_COMPENSATION_TIMEOUT`](crate::compensate::DEFAULT_COMPENSATION_TIMEOUT)), in
    /// the rollback at a run's end and in [`recover`](Self::recover). An action past it is
    /// reported as timed out and the rollback goes on; see
    /// [the compensate module](crate::compensate#every-compensating-action-is-bounded).
    pub fn with_compensation_timeout(mut self, timeout: Duration) -> Self {
        self.compensation_timeout = timeout;
        self
    }

    /// Sets the options.
    pub fn with_options(mut self, options: LoopOptions) -> Self {
        self.options = options;
        self
    }

    /// Gates calls with `gate` (default: only what tools declare).
    pub fn with_gate(mut self, gate: Gate) -> Self {
        self.gate = gate;
        self
    }

    /// Consults `provider` at every round for more tools (add-only).
    pub fn with_provider(mut self, provider: Arc<dyn ToolProvider>) -> Self {
        self.providers.push(provider);
        self
    }

    /// Calls `listener` with every [`LoopEvent`].
    pub fn with_event_listener(
        mut self,
        listener: impl Fn(&LoopEvent) + Send + Sync + 'static,
    ) -> Self {
        self.listener = Some(Arc::new(listener));
        self
    }

    /// Calls `hook` before each tool call starts.
    pub fn with_before_tool(mut self, hook: impl Fn(&ToolCall) + Send + Sync + 'static) -> Self {
        self.before = Some(Arc::new(hook));
        self
    }

    /// Calls `hook` after each tool call ends, with its result.
    pub fn with_after_tool(
        mut self,
        hook: impl Fn(&ToolCall, &crate::define::ToolResult) + Send + Sync + 'static,
    ) -> Self {
        self.after = Some(Arc::new(hook));
        self
    }

    /// Ranks deferred tools for the built-in search tool with `strategy` (default BM25).
    pub fn with_search(
        mut self,
        strategy: impl crate::describe::search::SearchStrategy + 'static,
    ) -> Self {
        self.search = Arc::new(strategy);
        self
    }

    /// Words what the model reads for a failed call (by default
    /// [`ToolError::model_message`](crate::define::ToolError::model_message)), for argument errors and
    /// execution errors alike; matching the error's variant tells them apart.
    pub fn with_tool_error_message(
        mut self,
        handler: impl Fn(&ToolCall, &crate::define::ToolError) -> String + Send + Sync + 'static,
    ) -> Self {
        self.error_handler = Some(Arc::new(handler));
        self
    }

    /// The loop's registry.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Adds what the providers offer, and reports once per name what the run does not take.
    pub(crate) async fn refresh(&self, tools: &mut RunTools<'_>) {
        for (name, reason) in tools.refresh(&self.providers).await {
            let first = self
                .skipped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(name.clone());
            if first {
                tracing::warn!(tool = %name, reason = %reason, "a provider's tool is not offered");
                self.emit(&LoopEvent::ToolSkipped { name, reason });
            }
        }
    }

    /// Whether anyone listens to events.
    /// Where this loop's runs are kept: its store, or without one its own in-memory run store.
    #[cfg_attr(not(feature = "approvals"), allow(dead_code))]
    pub(crate) fn run_store(&self) -> &dyn RunStore {
        match &self.store {
            Some(store) => &**store,
            None => &self.parked,
        }
    }

    pub(crate) fn listens(&self) -> bool {
        self.listener.is_some()
    }

    pub(crate) fn emit(&self, event: &LoopEvent) {
        if let Some(listener) = &self.listener {
            listener(event);
        }
    }
}

impl fmt::Debug for ToolLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolLoop")
            .field("registry", &self.registry)
            .field("gate", &self.gate)
            .field("options", &self.options)
            .field("store", &self.store.is_some())
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}
