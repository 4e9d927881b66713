//! The paused state: a reply whose calls wait for decisions, and what a paused run must remember
//! to go on.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::model::{tool_call_keys, AssistantMessage, ToolCall, ToolResultStatus};
use crate::store::{CompensationRecord, PauseId, RunId};

/// A turn paused for decisions: the model's reply, none of whose calls has run because some
/// wait for a person's decision, and what its run must remember to go on (its id, its rounds,
/// its compensation record). The gate pauses a reply into one ([`Gate::execute`]); the loop
/// returns one when a run pauses ([`LoopStatus::Paused`]).
///
/// Nothing in a value handed back is trusted: whoever can edit a paused turn could run any tool
/// with any arguments. The genuine copy is kept where the caller cannot change it — in a
/// [`RunStore`](crate::store::RunStore) under [`id`](Self::id) (any process sharing the store
/// can resume it), in the loop that paused it, or sealed by a [`Sealer`] — and a resume checks
/// the decisions against that copy and uses it once.
///
/// [`Gate::execute`]: crate::gate::Gate::execute
/// [`LoopStatus::Paused`]: crate::run::LoopStatus::Paused
/// [`Sealer`]: crate::gate::Sealer
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PausedTurn {
    pause: PauseId,
    reply: AssistantMessage,
    request_tools: Vec<String>,
    awaiting: Vec<String>,
    /// When its waiting calls may no longer be allowed, if its policy gave it a deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline: Option<SystemTime>,
    pub(crate) run: RunState,
}

/// A run waiting at a pause, as [`RunStore::list_paused`](crate::store::RunStore::list_paused)
/// gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PausedRun {
    /// When it paused.
    pub paused_at: std::time::SystemTime,
    /// The turn it waits at: its run's id, its pause, its calls.
    pub turn: PausedTurn,
}

impl PausedRun {
    /// The run paused at `paused_at`, waiting at `turn`: for a store of the application's own.
    pub fn new(paused_at: std::time::SystemTime, turn: PausedTurn) -> Self {
        Self { paused_at, turn }
    }
}

/// One call of a paused reply, as shown to the person deciding.
#[derive(Debug, Clone)]
pub struct PendingCall<'a> {
    /// The call's key, which decisions name.
    pub key: String,
    /// The call as the model gave it.
    pub call: &'a ToolCall,
    /// Whether the call itself needs a decision (the others of the reply wait with it).
    pub awaiting: bool,
}

impl PausedTurn {
    /// A paused reply under a fresh id, of a run that has done nothing else; `request_tools`
    /// are the names of the tools the request offered, and `awaiting` the keys of the calls
    /// that need a decision.
    pub fn new(
        reply: AssistantMessage,
        request_tools: impl IntoIterator<Item = impl AsRef<str>>,
        awaiting: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> Self {
        Self::of_run(
            reply,
            request_tools
                .into_iter()
                .map(|name| name.as_ref().to_owned())
                .collect(),
            awaiting
                .into_iter()
                .map(|key| key.as_ref().to_owned())
                .collect(),
            RunState::new(RunId::new()),
        )
    }

    /// A paused reply of the run whose state is `run`, as a new pause of it.
    pub(crate) fn of_run(
        reply: AssistantMessage,
        request_tools: Vec<String>,
        awaiting: Vec<String>,
        run: RunState,
    ) -> Self {
        Self {
            pause: PauseId::new(),
            reply,
            request_tools,
            awaiting,
            deadline: None,
            run,
        }
    }

    /// The turn, given a deadline `within` from now when there is one (a deadline too far to
    /// write down is none).
    pub(crate) fn with_deadline_in(mut self, within: Option<Duration>) -> Self {
        self.deadline = within.and_then(|within| SystemTime::now().checked_add(within));
        self
    }

    /// When its waiting calls may no longer be allowed: each is then denied with a reason the
    /// model reads ([`expiry`](Self::expiry)). `None` when its policy gave it no deadline
    /// ([`ConfirmationPolicy::with_deadline`](crate::gate::ConfirmationPolicy::with_deadline)).
    pub fn deadline(&self) -> Option<SystemTime> {
        self.deadline
    }

    /// Whether its deadline has passed at `now`.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use tool_sdk::gate::{ConfirmationPolicy, Gate};
    /// use tool_sdk::{tool, AssistantMessage, ToolCall, ToolRegistry};
    ///
    /// /// Wires money.
    /// #[tool(confirm)]
    /// fn wire_money(euros: u32) -> String {
    ///     format!("sent {euros}")
    /// }
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register(WireMoneyTool).unwrap();
    /// let gate = Gate::new(ConfirmationPolicy::new().with_deadline(Duration::from_secs(60)));
    /// let call = ToolCall::new("c1", "wire_money", r#"{"euros": 5}"#);
    /// let reply = AssistantMessage::with_tool_calls(vec![call]);
    /// let paused = gate.check(&registry, registry.names(), &reply).unwrap();
    /// assert!(!paused.is_overdue(SystemTime::now()));
    /// assert!(paused.is_overdue(SystemTime::now() + Duration::from_secs(61)));
    /// ```
    pub fn is_overdue(&self, now: SystemTime) -> bool {
        self.deadline.is_some_and(|deadline| deadline <= now)
    }

    /// The id of its run: what a resume names it by.
    pub fn id(&self) -> &RunId {
        &self.run.id
    }

    /// Which pause of its run this is: decisions are made for it
    /// ([`decide`](Self::decide)) and apply to it alone, never to a later pause of the same run
    /// that waits on the same calls.
    pub fn pause(&self) -> &PauseId {
        &self.pause
    }

    /// The reply, unchanged.
    pub fn reply(&self) -> &AssistantMessage {
        &self.reply
    }

    /// The id of the conversation the run keeps in a chat memory
    /// ([`Run::with_memory`](crate::run::Run::with_memory)), when it runs on one.
    pub fn conversation(&self) -> Option<&str> {
        self.run.conversation.as_deref()
    }

    /// The names of the tools the request offered; an allowed call of another tool never runs.
    pub fn request_tools(&self) -> &[String] {
        &self.request_tools
    }

    /// The keys of the calls that need a decision, in reply order.
    pub fn awaiting(&self) -> &[String] {
        &self.awaiting
    }

    /// The limit of the run's budget this pause asks a person to extend, as a person reads it
    /// (`1200 tokens used of 1000`); `None` for a pause on calls a policy gates. Allowing grants
    /// the run a whole budget again, from where it stands. When the limit was reached before a
    /// request, the reply holds one call of the loop's own, `tool_sdk.extend_budget`, which
    /// never enters the conversation: denied, the run ends
    /// ([`BudgetExhausted`](crate::run::LoopStatus::BudgetExhausted)). Otherwise the reply is
    /// the model's, each call that can run waiting: the allowed ones run and the denied ones
    /// are answered so; denying them all ends the run. See
    /// [`OnExhausted::Ask`](crate::run::OnExhausted::Ask).
    pub fn budget_reached(&self) -> Option<&str> {
        self.run
            .budget
            .asked
            .as_ref()
            .map(|ask| ask.reached.as_str())
    }

    /// What a person decided at the run's earlier pauses, oldest first: who, when, on which
    /// call, and what.
    pub fn decisions(&self) -> &[crate::store::DecisionRecord] {
        &self.run.decisions
    }

    /// Every call of the reply with its key, in reply order.
    pub fn calls(&self) -> impl Iterator<Item = PendingCall<'_>> {
        let keys = tool_call_keys(&self.reply);
        self.reply
            .tool_calls
            .iter()
            .zip(keys)
            .map(move |(call, key)| PendingCall {
                awaiting: self.awaiting.contains(&key),
                key,
                call,
            })
    }
}

/// What a run remembers across rounds and a pause. What is empty is left out when it is
/// written (a turn the gate pauses alone has only its id), so a sealed token stays small.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunState {
    pub(crate) id: RunId,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) rounds: usize,
    /// Deferred tools found by a search in this run.
    #[serde(default, skip_serializing_if = "std::collections::HashSet::is_empty")]
    pub(crate) found: std::collections::HashSet<String>,
    #[serde(default, skip_serializing_if = "CompensationRecord::is_untouched")]
    pub(crate) record: CompensationRecord,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) calls: Vec<CallSummary>,
    /// The tokens the model reported for the run's requests, summed.
    #[serde(default, skip_serializing_if = "crate::model::Usage::is_zero")]
    pub(crate) usage: crate::model::Usage,
    /// The extensions of its budget a person granted, and the one a pause asks for.
    #[serde(
        default,
        skip_serializing_if = "crate::store::BudgetState::is_untouched"
    )]
    pub(crate) budget: crate::store::BudgetState,
    /// When the run started or was resumed in this process, when its budget has a wall time.
    #[serde(skip)]
    pub(crate) started: Option<std::time::Instant>,
    /// The id of the conversation a chat memory keeps for the run, when it runs on one: where
    /// a screen finds what the run is about, and what its resume goes on with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) conversation: Option<String>,
    /// The pauses of the run decided already, oldest first: decisions that name one came late
    /// (the run went on), and decisions that name none of its pauses were built for another.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) decided: Vec<PauseId>,
    /// What a person decided at each of those pauses, on each call that waited, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) decisions: Vec<crate::store::DecisionRecord>,
    /// Idempotency keys of recorded entries the store refused (the run was taken over): this
    /// process alone knows of them. A run that pauses has none.
    #[serde(skip)]
    pub(crate) local_only: std::collections::HashSet<String>,
    /// The store's first failure in the run: reported once, in the run's outcome. Boxed: it
    /// is rare, and this state is held in every run's future and every paused turn.
    #[serde(skip)]
    pub(crate) store_error: Option<Box<crate::store::StoreError>>,
    /// The results of the round that stopped the run, not yet in the conversation: they are
    /// written once, at the run's end, as its rollback leaves them.
    #[serde(skip)]
    pub(crate) unwritten: Vec<crate::model::Message>,
}

fn is_zero(rounds: &usize) -> bool {
    *rounds == 0
}

impl RunState {
    pub(crate) fn new(id: RunId) -> Self {
        Self {
            id,
            rounds: 0,
            found: std::collections::HashSet::new(),
            record: CompensationRecord::new(),
            calls: Vec::new(),
            usage: crate::model::Usage::default(),
            budget: crate::store::BudgetState::default(),
            started: None,
            conversation: None,
            decided: Vec::new(),
            decisions: Vec::new(),
            local_only: std::collections::HashSet::new(),
            store_error: None,
            unwritten: Vec::new(),
        }
    }
}

/// One tool call of a run and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSummary {
    /// The round it belongs to (1-based).
    pub round: usize,
    /// Its key in its reply.
    pub key: String,
    /// The call as the model gave it.
    pub call: ToolCall,
    /// Whether the tool started (a call left when the run was cancelled, or denied, did not).
    pub started: bool,
    /// How it ended, as the model was told.
    pub status: ToolResultStatus,
}
