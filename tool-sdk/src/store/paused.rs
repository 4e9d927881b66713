//! The paused state: a reply whose calls wait for decisions, and what a paused run must remember
//! to go on.

use serde::{Deserialize, Serialize};

use crate::model::{tool_call_keys, AssistantMessage, ToolCall, ToolResultStatus};
use crate::store::{CompensationRecord, RunId};

/// A reply held back because some of its calls wait for a person's decision. None of its calls
/// has run.
///
/// It must come back exactly as it was given out: keep it server-side
/// ([`PausedTurnStore`](crate::store::PausedTurnStore)) or hand it out sealed
/// ([`Sealer`](crate::gate::Sealer)); whoever can edit it could run any tool with any arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PausedTurn {
    reply: AssistantMessage,
    request_tools: Vec<String>,
    awaiting: Vec<String>,
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
    /// A paused reply; `request_tools` are the names of the tools the request offered, and
    /// `awaiting` the keys of the calls that need a decision.
    pub fn new(reply: AssistantMessage, request_tools: Vec<String>, awaiting: Vec<String>) -> Self {
        Self {
            reply,
            request_tools,
            awaiting,
        }
    }

    /// The reply, unchanged.
    pub fn reply(&self) -> &AssistantMessage {
        &self.reply
    }

    /// The names of the tools the request offered; an allowed call of another tool never runs.
    pub fn request_tools(&self) -> &[String] {
        &self.request_tools
    }

    /// The keys of the calls that need a decision, in reply order.
    pub fn awaiting(&self) -> &[String] {
        &self.awaiting
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

/// A run paused for decisions: the paused reply and what the run must remember to go on (its
/// compensation record, its round count).
///
/// The loop keeps the genuine copy under [`id`](Self::id) — in its [`RunStore`], where any
/// process can resume it ([`ToolLoop::resume_stored`]), or, without a store, in the loop
/// itself — and a resume runs that copy, once. A value handed back (or a copy of it, edited or
/// not) only names the run: nothing in it is trusted. To resume in another process, give the
/// loop a store and hand out the id.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PausedRun {
    pub(crate) turn: PausedTurn,
    pub(crate) state: RunState,
}

impl PausedRun {
    /// The paused reply, to show and decide on.
    pub fn turn(&self) -> &PausedTurn {
        &self.turn
    }

    /// The run's id.
    pub fn id(&self) -> &RunId {
        &self.state.id
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct RunState {
    pub(crate) id: RunId,
    pub(crate) rounds: usize,
    /// Deferred tools found by a search in this run.
    pub(crate) found: std::collections::HashSet<String>,
    pub(crate) record: CompensationRecord,
    pub(crate) calls: Vec<CallReport>,
    /// Idempotency keys of recorded entries the store refused (the run was taken over): this
    /// process alone knows of them. A run that pauses has none.
    #[serde(skip)]
    pub(crate) local_only: std::collections::HashSet<String>,
}

impl RunState {
    pub(crate) fn new(id: RunId) -> Self {
        Self {
            id,
            rounds: 0,
            found: std::collections::HashSet::new(),
            record: CompensationRecord::new(),
            calls: Vec::new(),
            local_only: std::collections::HashSet::new(),
        }
    }
}

/// One tool call of a run and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallReport {
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
