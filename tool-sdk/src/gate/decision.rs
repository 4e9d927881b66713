//! A person's decisions on the calls of a paused reply, and what is wrong with a set of them.

use crate::gate::fingerprint;
use crate::model::tool_call_keys;
use crate::store::{PauseId, PausedTurn};
use serde::{Deserialize, Serialize};

/// Allow or deny one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Run the call, provided its tool name and arguments still have this fingerprint
    /// ([`fingerprint`](crate::gate::fingerprint)).
    Allow {
        /// The fingerprint of the call that was shown to the person.
        fingerprint: String,
    },
    /// Run the call with `arguments` in place of the model's, provided its tool name and
    /// arguments still have this fingerprint: a person corrected them before allowing it. The
    /// arguments must fit the tool's schema (checked before anything runs; decisions whose
    /// edit does not fit are refused and the run still waits), and the model reads, with the
    /// result, that a person changed them, and to what.
    AllowEdited {
        /// The fingerprint of the call that was shown to the person.
        fingerprint: String,
        /// The arguments it runs with, as JSON text.
        arguments: String,
    },
    /// Do not run the call; the model reads `message` as its result.
    Deny {
        /// What the model is told.
        message: String,
    },
}

/// The decision on one call, named by its key ([`tool_call_keys`](crate::model::tool_call_keys)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallDecision {
    /// The call's key in its reply.
    pub key: String,
    /// Allow or deny.
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl ToolCallDecision {
    /// Allows the call with `key`, bound to the `fingerprint` of the call the person saw.
    pub fn allow(key: impl Into<String>, fingerprint: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            verdict: Verdict::Allow {
                fingerprint: fingerprint.into(),
            },
        }
    }

    /// Allows the call with `key`, bound to the `fingerprint` of the call the person saw, to
    /// run with `arguments` (JSON text) in place of the model's.
    pub fn allow_edited(
        key: impl Into<String>,
        fingerprint: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            key: key.into(),
            verdict: Verdict::AllowEdited {
                fingerprint: fingerprint.into(),
                arguments: arguments.into(),
            },
        }
    }

    /// Denies the call with `key`; the model reads `message`.
    pub fn deny(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            verdict: Verdict::Deny {
                message: message.into(),
            },
        }
    }
}

/// One decision per call of one paused reply, made for that pause
/// ([`PausedTurn::pause`](crate::store::PausedTurn::pause)): they apply to it alone, so an
/// approval sent twice, late, or by two racing resumes never runs a call of a later pause, even
/// one that looks the same. Build it with
/// [`PausedTurn::decide`](crate::store::PausedTurn::decide), which binds each allowance to the
/// call's fingerprint, or from decisions received from elsewhere with [`for_pause`](Self::for_pause).
///
/// It travels as JSON: `{"pause": "...", "decisions": [{"key": "c1", "verdict": "allow",
/// "fingerprint": "..."}, {"key": "c2", "verdict": "deny", "message": "..."}]}`, and
/// `"decider": "..."` when it says who decided ([`with_decider`](Self::with_decider)).
///
/// ```
/// use tool_sdk::gate::{fingerprint, ToolCallDecision, ToolCallDecisions};
/// use tool_sdk::store::PausedTurn;
/// use tool_sdk::{AssistantMessage, ToolCall};
///
/// let call = ToolCall::new("c1", "delete_file", r#"{"path": "/tmp/a"}"#);
/// let paused = PausedTurn::new(
///     AssistantMessage::with_tool_calls(vec![call.clone()]),
///     ["delete_file"],
///     ["c1"],
/// );
/// // What a person's client sends back, naming the pause it was shown.
/// let mut decisions = ToolCallDecisions::for_pause(paused.pause().clone());
/// decisions.push(ToolCallDecision::allow("c1", fingerprint(&call)));
/// assert_eq!(decisions, paused.decide().allow("c1").build());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallDecisions {
    pause: PauseId,
    decisions: Vec<ToolCallDecision>,
    /// Who decided, as whoever made the decisions says; absent in JSON that does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    decider: Option<String>,
}

impl ToolCallDecisions {
    /// No decisions yet, for the pause `pause`.
    pub fn for_pause(pause: PauseId) -> Self {
        Self {
            pause,
            decisions: Vec::new(),
            decider: None,
        }
    }

    /// Says who decided: a label the loop puts on the spans of the calls decided
    /// (`tool_sdk.gate.decider`), such as `terminal`, `approval_page`, or an application's
    /// name for a person. It is what whoever made the decisions says, not an authenticated
    /// identity, and it changes nothing about what runs.
    ///
    /// ```
    /// use tool_sdk::gate::ToolCallDecisions;
    /// use tool_sdk::store::PauseId;
    ///
    /// let decisions = ToolCallDecisions::for_pause(PauseId::from_string("p1")).with_decider("ana");
    /// assert_eq!(decisions.decider(), Some("ana"));
    /// ```
    pub fn with_decider(mut self, decider: impl Into<String>) -> Self {
        self.decider = Some(decider.into());
        self
    }

    /// Who decided, when the decisions say ([`with_decider`](Self::with_decider)).
    pub fn decider(&self) -> Option<&str> {
        self.decider.as_deref()
    }

    /// The pause these decisions were made for.
    pub fn pause(&self) -> &PauseId {
        &self.pause
    }

    /// Adds a decision.
    pub fn push(&mut self, decision: ToolCallDecision) -> &mut Self {
        self.decisions.push(decision);
        self
    }

    /// The decisions, in the order they were given.
    pub fn decisions(&self) -> &[ToolCallDecision] {
        &self.decisions
    }

    /// The decision on the call with `key`, if any (the first, if there are several).
    pub fn decision_on(&self, key: &str) -> Option<&ToolCallDecision> {
        self.decisions.iter().find(|d| d.key == key)
    }
}

/// What the model reads of a call whose pause's deadline passed before anyone decided.
const PAST_DEADLINE: &str = "This call did not run: no one decided on it before its deadline.";

/// Who decided, as the run records it, when the deadline did.
const DEADLINE_DECIDER: &str = "deadline";

impl PausedTurn {
    /// The decisions the pause's [deadline](Self::deadline) makes: each call that waited is
    /// denied, the model reading `This call did not run: no one decided on it before its
    /// deadline.`, and the others of the reply, which needed no one, run. The run records
    /// `deadline` as their decider. Like any decisions, they resume the run once: whichever of
    /// a person's decision and the expiry is taken first wins.
    ///
    /// ```
    /// use tool_sdk::gate::Verdict;
    /// use tool_sdk::store::PausedTurn;
    /// use tool_sdk::{AssistantMessage, ToolCall};
    ///
    /// let reply = AssistantMessage::with_tool_calls(vec![
    ///     ToolCall::new("c1", "wire_money", r#"{"euros": 5}"#),
    ///     ToolCall::new("c2", "look_up", "{}"),
    /// ]);
    /// let paused = PausedTurn::new(reply, ["wire_money", "look_up"], ["c1"]);
    /// let expiry = paused.expiry();
    /// assert!(matches!(expiry.decision_on("c1").unwrap().verdict, Verdict::Deny { .. }));
    /// assert!(matches!(expiry.decision_on("c2").unwrap().verdict, Verdict::Allow { .. }));
    /// assert_eq!(expiry.decider(), Some("deadline"));
    /// ```
    pub fn expiry(&self) -> ToolCallDecisions {
        let mut decide = self.decide();
        for pending in self.calls().filter(|pending| pending.awaiting) {
            decide = decide.deny(&pending.key, PAST_DEADLINE);
        }
        decide.allow_rest().build().with_decider(DEADLINE_DECIDER)
    }

    /// Starts a set of decisions on this reply; each allowance binds to the call's fingerprint.
    pub fn decide(&self) -> DecisionsBuilder<'_> {
        DecisionsBuilder {
            turn: self,
            keys: tool_call_keys(self.reply()),
            decisions: ToolCallDecisions::for_pause(self.pause().clone()),
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

    /// Allows the call with `key`, as it stands in the paused reply, to run with `arguments`
    /// (JSON text) in place of the model's: a person corrected them.
    ///
    /// ```
    /// use tool_sdk::gate::Verdict;
    /// use tool_sdk::store::PausedTurn;
    /// use tool_sdk::{AssistantMessage, ToolCall};
    ///
    /// let reply = AssistantMessage::with_tool_calls(vec![ToolCall::new(
    ///     "c1",
    ///     "wire_money",
    ///     r#"{"euros": 5000}"#,
    /// )]);
    /// let paused = PausedTurn::new(reply, ["wire_money"], ["c1"]);
    /// let decisions = paused.decide().allow_edited("c1", r#"{"euros": 500}"#).build();
    /// assert!(matches!(
    ///     &decisions.decision_on("c1").unwrap().verdict,
    ///     Verdict::AllowEdited { arguments, .. } if arguments == r#"{"euros": 500}"#
    /// ));
    /// ```
    pub fn allow_edited(mut self, key: &str, arguments: impl Into<String>) -> Self {
        let fingerprint = self.fingerprint_of(key).unwrap_or_default();
        self.decisions
            .push(ToolCallDecision::allow_edited(key, fingerprint, arguments));
        self
    }

    /// Denies the call with `key`; the model reads `message`.
    pub fn deny(mut self, key: &str, message: impl Into<String>) -> Self {
        self.decisions.push(ToolCallDecision::deny(key, message));
        self
    }

    /// Allows every call not decided yet.
    pub fn allow_rest(mut self) -> Self {
        for (key, call) in self.keys.iter().zip(&self.turn.reply().tool_calls) {
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
        self.turn.reply().tool_calls.get(position).map(fingerprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decider_travels_in_json_only_when_said() {
        let pause = PauseId::from_string("p1");
        let mut unsaid = ToolCallDecisions::for_pause(pause.clone());
        unsaid.push(ToolCallDecision::deny("c1", "no"));
        // Decisions that say no decider are written as before, and such JSON still reads.
        let json = serde_json::to_string(&unsaid).unwrap();
        assert!(!json.contains("decider"), "{json}");
        let read: ToolCallDecisions = serde_json::from_str(&json).unwrap();
        assert_eq!(read, unsaid);
        assert_eq!(read.decider(), None);

        let said = unsaid.with_decider("ana");
        let json = serde_json::to_string(&said).unwrap();
        let read: ToolCallDecisions = serde_json::from_str(&json).unwrap();
        assert_eq!(read.decider(), Some("ana"));
        assert_eq!(read, said);
    }
}
