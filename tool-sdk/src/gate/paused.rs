//! A reply whose calls wait for decisions, and the outcome of gating a reply.

use serde::{Deserialize, Serialize};

use crate::gate::{fingerprint, tool_call_keys, CallOutcome, ToolCallDecision, ToolCallDecisions};
use crate::{AssistantMessage, ToolCall};

/// A reply held back because some of its calls wait for a person's decision. None of its calls
/// has run.
///
/// It must come back exactly as it was given out: keep it server-side
/// ([`PausedTurnStore`](crate::gate::PausedTurnStore)) or hand it out sealed
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

    /// Starts a set of decisions on this reply; each allowance binds to the call's fingerprint.
    pub fn decide(&self) -> DecisionsBuilder<'_> {
        DecisionsBuilder {
            turn: self,
            keys: tool_call_keys(&self.reply),
            decisions: ToolCallDecisions::new(),
        }
    }
}

/// Builds [`ToolCallDecisions`] for a [`PausedTurn`], binding allowances to fingerprints.
#[derive(Debug)]
pub struct DecisionsBuilder<'a> {
    turn: &'a PausedTurn,
    keys: Vec<String>,
    decisions: ToolCallDecisions,
}

impl DecisionsBuilder<'_> {
    /// Allows the call with `key`, as it stands in the paused reply. A key that names no call
    /// is kept, to be refused when the decisions are applied.
    pub fn allow(mut self, key: &str) -> Self {
        let fingerprint = self.fingerprint_of(key).unwrap_or_default();
        self.decisions
            .push(ToolCallDecision::allow(key, fingerprint));
        self
    }

    /// Denies the call with `key`; the model reads `message`.
    pub fn deny(mut self, key: &str, message: impl Into<String>) -> Self {
        self.decisions.push(ToolCallDecision::deny(key, message));
        self
    }

    /// Allows every call not decided yet.
    pub fn allow_rest(mut self) -> Self {
        for (key, call) in self.keys.iter().zip(&self.turn.reply.tool_calls) {
            if self.decisions.decision_on(key).is_none() {
                self.decisions
                    .push(ToolCallDecision::allow(key.clone(), fingerprint(call)));
            }
        }
        self
    }

    /// The decisions.
    pub fn build(self) -> ToolCallDecisions {
        self.decisions
    }

    fn fingerprint_of(&self, key: &str) -> Option<String> {
        let position = self.keys.iter().position(|k| k == key)?;
        self.turn.reply.tool_calls.get(position).map(fingerprint)
    }
}

/// What gating a reply gave: every call's outcome, or a pause for decisions.
#[derive(Debug)]
#[non_exhaustive]
pub enum GateOutcome {
    /// No call needed a decision; all ran, results in reply order.
    Completed(Vec<CallOutcome>),
    /// Some calls need a decision; none ran.
    Paused(PausedTurn),
}

impl GateOutcome {
    /// The keys of the calls waiting for a decision; empty unless paused.
    pub fn awaiting_decision(&self) -> &[String] {
        match self {
            Self::Paused(turn) => turn.awaiting(),
            Self::Completed(_) => &[],
        }
    }

    /// Whether the reply is paused, waiting for decisions.
    pub fn is_awaiting_decision(&self) -> bool {
        matches!(self, Self::Paused(_))
    }
}
