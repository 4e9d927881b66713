//! The loop itself: its configuration, a run from start to end, resuming a paused run.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::{select, Either};
use std::pin::pin;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::compensate::{Held, Rollback};
use crate::gate::{Gate, GateError, ToolCallDecisions};
use crate::model::{
    AssistantMessage, ChatModel, ChatRequest, Message, OfferedTool, ToolCall, ToolResultStatus,
};
use crate::register::{ToolProvider, ToolRegistry};
use crate::store::{
    Heartbeat, InMemoryRunStore, PausedTurn, RunId, RunState, RunStore, StoreError,
};

use crate::run::approve::Approver;
use crate::run::outcome::RoundEnd;
use crate::run::terminal::Terminal;
use crate::run::tools::RunTools;
use crate::run::{durable, LoopEvent, LoopOptions, LoopOutcome, LoopStatus};

type Listener = dyn Fn(&LoopEvent) + Send + Sync;
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
    /// execution errors alike; `error.kind()` tells them apart.
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

    /// Asks the approver, if there is one, about each pause of the run, and resumes it with
    /// its decisions, until the run stops otherwise (or the decisions are refused: the run
    /// then stays paused, as it stands).
    pub(super) async fn decide_pauses(
        &self,
        conversation: &mut Vec<Message>,
        mut outcome: LoopOutcome,
        cancel: &CancellationToken,
    ) -> LoopOutcome {
        while let (Some(approver), LoopStatus::Paused(paused)) = (&self.approver, &outcome.status) {
            let decisions = approver.decide(paused).await;
            match self
                .resume_decided(conversation, paused.id(), &decisions, cancel)
                .await
            {
                Ok(next) => outcome = next,
                Err(error) => {
                    tracing::error!(run = %paused.id(), error = %error, "the approver's decisions were refused; the run stays paused");
                    break;
                }
            }
        }
        outcome
    }

    /// Begins a run and drives it until it stops.
    pub(super) async fn start(
        &self,
        conversation: &mut Vec<Message>,
        cancel: &CancellationToken,
    ) -> LoopOutcome {
        let state = RunState::new(RunId::next());
        let tools = RunTools::new(
            &self.registry,
            &*self.search,
            self.options.defer_threshold,
            state.found.clone(),
        );
        if let Some(store) = &self.store {
            if let Err(error) = store.begin(&state.id, self.lease).await {
                // Nothing ran: there is nothing to roll back or record.
                return LoopOutcome::not_started(state.id, error);
            }
        }
        self.drive(conversation, state, tools, None, cancel).await
    }

    /// Resumes the run paused under `id` with `decisions`, checked against the copy kept
    /// (see [`resume`](Self::resume)).
    pub(super) async fn resume_decided(
        &self,
        conversation: &mut Vec<Message>,
        id: &RunId,
        decisions: &ToolCallDecisions,
        cancel: &CancellationToken,
    ) -> Result<LoopOutcome, GateError> {
        let (taken, resolutions) = match &self.store {
            Some(store) => {
                self.gate
                    .take_decided(&**store, id, decisions, self.lease)
                    .await?
            }
            None => {
                let taken = self
                    .gate
                    .take_decided(&self.parked, id, decisions, self.lease)
                    .await?;
                // The run goes on in this process alone; the store remembers it resumed, so
                // that a second resume is told it was decided already.
                self.parked.finish(id).await?;
                taken
            }
        };
        Ok(self
            .resume_taken(conversation, taken, resolutions, cancel)
            .await)
    }

    /// The paused turn, and whatever follows, once taken.
    async fn resume_taken(
        &self,
        conversation: &mut Vec<Message>,
        paused: PausedTurn,
        resolutions: Vec<crate::gate::Resolution>,
        cancel: &CancellationToken,
    ) -> LoopOutcome {
        let reply = paused.reply().clone();
        let state = paused.run;
        let mut tools = RunTools::new(
            &self.registry,
            &*self.search,
            self.options.defer_threshold,
            state.found.clone(),
        );
        self.refresh(&mut tools).await;
        self.drive(
            conversation,
            state,
            tools,
            Some((reply, resolutions)),
            cancel,
        )
        .await
    }

    /// Runs a begun or taken run to its end under its lease: the paused reply's round first
    /// when resuming, then rounds until the run stops, then the rollback if it did not end
    /// well.
    ///
    /// Not an `async fn`: one of those keeps each argument taken by value twice in its future
    /// (as the argument, and as the local it is moved into), and this future is inside every
    /// run's.
    #[allow(clippy::manual_async_fn)]
    fn drive<'a>(
        &'a self,
        conversation: &'a mut Vec<Message>,
        mut state: RunState,
        mut tools: RunTools<'a>,
        resumed: Option<(AssistantMessage, Vec<crate::gate::Resolution>)>,
        cancel: &'a CancellationToken,
    ) -> impl std::future::Future<Output = LoopOutcome> + 'a {
        async move {
            // The run's own token: cancelled by the caller's, or by the heartbeat on a takeover.
            let run_cancel = cancel.child_token();
            let heartbeat =
                Heartbeat::start(self.store.as_ref(), &state.id, self.lease, &run_cancel);
            let round = match resumed {
                Some((reply, resolutions)) => {
                    self.round(
                        conversation,
                        &mut state,
                        &tools,
                        reply,
                        resolutions,
                        &run_cancel,
                    )
                    .await
                }
                None => RoundEnd::Continue,
            };
            let mut status = match round {
                RoundEnd::Continue => {
                    self.rounds(conversation, &mut state, &mut tools, &run_cancel)
                        .await
                }
                RoundEnd::Stop(status) => status,
            };
            // Whatever the last round gave, a run taken over is the new owner's to end. A paused
            // run is not running any more: a renewal that met it paused lost nothing (a run taken
            // over before could not have paused).
            if heartbeat.is_lost() && !matches!(status, LoopStatus::Paused(_)) {
                state.store_error = Some(StoreError::Lost(state.id.to_string()));
                status = LoopStatus::StoreFailed;
            }
            self.end_run(conversation, state, &tools, status, heartbeat)
                .await
        }
    }

    async fn rounds(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &mut RunTools<'_>,
        cancel: &CancellationToken,
    ) -> LoopStatus {
        loop {
            if cancel.is_cancelled() {
                return LoopStatus::Cancelled;
            }
            if state.rounds >= self.options.max_rounds {
                return LoopStatus::MaxRoundsReached;
            }
            self.refresh(tools).await;
            // Every tool must be describable in the model's dialect before it is offered; a
            // tool that is not stops the run here, before the provider refuses the request.
            let dialect = self.model.dialect();
            if let Err(error) = tools.check_dialect(dialect, &self.schemas) {
                return LoopStatus::DescribeFailed(error);
            }
            let lowered;
            let offered: Vec<OfferedTool<'_>> = if dialect.takes_canonical() {
                tools.offered_canonical()
            } else {
                lowered = match tools.offered_lowered(dialect, &self.schemas) {
                    Ok(lowered) => lowered,
                    Err(error) => return LoopStatus::DescribeFailed(error),
                };
                lowered
                    .iter()
                    .map(|(definition, lowered)| OfferedTool {
                        definition,
                        parameters: lowered.schema(definition),
                    })
                    .collect()
            };
            state.rounds += 1;
            self.emit(&LoopEvent::ModelCalled {
                round: state.rounds,
            });
            let request = ChatRequest {
                messages: conversation,
                tools: &offered,
                options: &self.options.chat,
            };
            let span = tracing::info_span!(
                "gen_ai.chat",
                gen_ai.operation.name = "chat",
                round = state.rounds
            );
            // Streamed, calls start while the reply still arrives; not when a call might need
            // a decision, since then no call of the reply may run before all are known.
            let streaming = self.options.streaming && !self.may_pause(tools);
            let run_id = state.id.clone();
            let finished = durable::WriteAhead::new(
                self.store.as_deref(),
                &run_id,
                state.rounds,
                conversation.len() + 1,
            );
            let streamed = match streaming.then(|| self.model.chat_stream(request)).flatten() {
                Some(stream) => Some(
                    self.consume_stream(stream, tools, finished, cancel)
                        .instrument(span.clone())
                        .await,
                ),
                None => None,
            };
            if let Some(streamed) = streamed {
                if let Some(terminal) = &self.terminal {
                    terminal.replied(&streamed.reply);
                }
                if streamed.reply.tool_calls.is_empty() {
                    if let Some(error) = streamed.error {
                        return LoopStatus::ModelFailed(error);
                    }
                    if cancel.is_cancelled() {
                        return LoopStatus::Cancelled;
                    }
                    conversation.push(Message::Assistant(streamed.reply.clone()));
                    return LoopStatus::Answered(streamed.reply);
                }
                let error = streamed.error;
                let end = self.conclude(
                    conversation,
                    state,
                    tools,
                    streamed.reply,
                    streamed.ended,
                    streamed.finished,
                    cancel,
                );
                match (end, error) {
                    (RoundEnd::Stop(status), _) => return status,
                    (RoundEnd::Continue, Some(error)) => return LoopStatus::ModelFailed(error),
                    (RoundEnd::Continue, None) => continue,
                }
            }
            let call = self.model.chat(request).instrument(span);
            let response = match select(pin!(cancel.cancelled()), call).await {
                Either::Left(((), _)) => return LoopStatus::Cancelled,
                Either::Right((response, _)) => response,
            };
            let reply = match response {
                Ok(response) => response.message,
                Err(error) => return LoopStatus::ModelFailed(error),
            };
            if let Some(terminal) = &self.terminal {
                terminal.replied(&reply);
            }
            if reply.tool_calls.is_empty() {
                conversation.push(Message::Assistant(reply.clone()));
                return LoopStatus::Answered(reply);
            }
            let awaiting = self.awaiting(tools, &reply);
            if !awaiting.is_empty() {
                self.emit(&LoopEvent::Paused {
                    awaiting: awaiting.clone(),
                });
                let mut kept_state = state.clone();
                kept_state.found = tools.found_names();
                let paused = PausedTurn::of_run(reply, tools.names(), awaiting, kept_state);
                let kept = match &self.store {
                    Some(store) => store.pause(paused.id(), &paused).await,
                    // Without a store, the run is begun in the loop's own, only to pause.
                    None => match self.parked.begin(paused.id(), self.lease).await {
                        Ok(()) => self.parked.pause(paused.id(), &paused).await,
                        Err(error) => Err(error),
                    },
                };
                if let Err(error) = kept {
                    state.store_error.get_or_insert(error);
                    return LoopStatus::StoreFailed;
                }
                return LoopStatus::Paused(Box::new(paused));
            }
            // Every tool of the run was offered; a name that is none of them gets "unknown
            // tool" with suggestions from the registry.
            let resolutions = vec![crate::gate::Resolution::Run; reply.tool_calls.len()];
            match self
                .round(conversation, state, tools, reply, resolutions, cancel)
                .await
            {
                RoundEnd::Continue => {}
                RoundEnd::Stop(status) => return status,
            }
        }
    }

    /// Whether any call could need a decision: the gate's policy names something, or a tool
    /// declares confirmation.
    fn may_pause(&self, tools: &RunTools<'_>) -> bool {
        !self.gate.policy().is_empty()
            || tools
                .all_definitions()
                .iter()
                .any(|d| d.options.confirm != crate::define::Confirm::Never)
    }

    /// Keys of calls needing a decision, looking each tool up among all the run's tools.
    fn awaiting(&self, tools: &RunTools<'_>, reply: &AssistantMessage) -> Vec<String> {
        self.gate
            .awaiting_among(reply, |name| tools.get(name).map(|tool| &**tool))
    }

    /// Rolls back what is compensable when the run did not end well, records the run's end,
    /// and builds the outcome.
    ///
    /// A run taken over by another owner rolls back only what that owner cannot know of: the
    /// successes the store refused to record. The rest is the new owner's.
    ///
    /// Not an `async fn`, for the reason given on [`drive`](Self::drive).
    #[allow(clippy::manual_async_fn)]
    fn end_run<'a>(
        &'a self,
        conversation: &'a mut [Message],
        mut state: RunState,
        tools: &'a RunTools<'a>,
        status: LoopStatus,
        heartbeat: Heartbeat,
    ) -> impl std::future::Future<Output = LoopOutcome> + 'a {
        async move {
            let taken_over = matches!(status, LoopStatus::StoreFailed)
                && matches!(state.store_error, Some(StoreError::Lost(_)));
            let reason = match &status {
                LoopStatus::Cancelled => Some("the run was cancelled".to_owned()),
                LoopStatus::RolledBack { name, error, .. } => Some(format!(
                    "a later step failed: `{name}`: {}",
                    error.model_message()
                )),
                LoopStatus::ModelFailed(error) => Some(format!("the model failed: {error}")),
                LoopStatus::DescribeFailed(error) => {
                    Some(format!("a tool cannot be offered to the model: {error}"))
                }
                LoopStatus::StoreFailed if taken_over => {
                    Some("the run was taken over by another process".to_owned())
                }
                LoopStatus::StoreFailed => Some(match &state.store_error {
                    Some(error) => format!("the run's store failed: {error}"),
                    None => "the run's store failed".to_owned(),
                }),
                _ => None,
            };
            let mut compensations = Vec::new();
            let mut store_error = state.store_error.take();
            let mut lost = taken_over;
            let mut unfinished = false;
            if let Some(reason) = reason {
                let entries = state
                    .record
                    .drain_newest_first()
                    .into_iter()
                    .map(|entry| {
                        let held = if self.store.is_none()
                            || state.local_only.contains(&entry.idempotency_key)
                        {
                            Held::LocalOnly
                        } else {
                            Held::Stored
                        };
                        (entry, held)
                    })
                    .collect();
                let rollback = Rollback {
                    store: self.store.as_deref(),
                    heartbeat: &heartbeat,
                    run: &state.id,
                    lease: self.lease,
                    timeout: self.compensation_timeout,
                };
                // Boxed: a rollback is the exception, and its state held inline would make every
                // run's future larger, to be moved by each caller that spawns or blocks on a run.
                let end = Box::pin(rollback.run(
                    entries,
                    taken_over,
                    |name| tools.get(name),
                    |entry, result| {
                        let error = result.as_ref().err().map(ToString::to_string);
                        if let Some(terminal) = &self.terminal {
                            terminal.rolled_back(&entry.call.name, &entry.key, error.as_deref());
                        }
                        self.emit(&LoopEvent::Compensated {
                            key: entry.key.clone(),
                            name: entry.call.name.clone(),
                            round: entry.round,
                            error: error.clone(),
                        });
                        tell_rolled_back(conversation, entry.message_index, &reason, error);
                    },
                ))
                .await;
                lost |= end.lost;
                unfinished = end.unfinished;
                if let Some(error) = end.store_error {
                    store_error.get_or_insert(error);
                }
                compensations = end.undone;
            }
            // No renewal may land after the run's end (or release) is recorded.
            heartbeat.stop().await;
            let ended = !matches!(status, LoopStatus::Paused(_)) && !lost;
            if let (Some(store), true) = (&self.store, ended) {
                let recorded = if unfinished {
                    // Released at once, for recovery to try the timed-out actions again.
                    store.release(&state.id, Duration::ZERO).await
                } else {
                    durable::record_end(&**store, &state.id).await
                };
                if let Err(failure) = recorded {
                    store_error.get_or_insert(failure);
                }
            }
            LoopOutcome {
                status,
                rounds: state.rounds,
                calls: state.calls,
                compensations,
                run_id: state.id,
                store_error,
            }
        }
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

/// Rewrites a rolled-back call's result so the model knows its effect no longer holds (or, when
/// the rollback failed, may still hold).
fn tell_rolled_back(
    conversation: &mut [Message],
    index: usize,
    reason: &str,
    error: Option<String>,
) {
    let Some(Message::Tool(message)) = conversation.get_mut(index) else {
        return;
    };
    let notice = match &error {
        None => format!(
            "This call was rolled back because {reason}; its effect no longer holds. It had returned:"
        ),
        Some(error) => format!(
            "Rolling this call back failed ({error}) after {reason}; its effect may still hold. It had returned:"
        ),
    };
    message.content = format!("{notice} {}", message.content);
    // A model reading the parts reads the notice there too, before what the call returned.
    if !message.parts.is_empty() {
        message.parts.insert(0, crate::define::Part::text(notice));
    }
    if error.is_none() {
        message.status = ToolResultStatus::RolledBack;
    }
}
