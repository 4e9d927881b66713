//! Gating a reply: pause it when a call needs a decision, apply decisions, run what is allowed.

use std::collections::HashSet;
use std::time::SystemTime;

use crate::gate::{fingerprint, ConfirmationPolicy, GateError, ToolCallDecisions, Verdict};

use crate::model::{
    tool_call_keys, AssistantMessage, ToolCall, ToolResultMessage, ToolResultStatus,
};

use crate::define::{Part, Tool, ToolError, ToolOutput};
use crate::register::ToolRegistry;
use crate::store::{unix_seconds, PausedTurn};

/// Runs a reply's tool calls behind a [`ConfirmationPolicy`]: when any call needs a person's
/// decision, **no** call of the reply runs and the reply is paused; once every call has a
/// decision, the allowed ones run and the denied ones answer the model with their message.
///
/// # Examples
///
/// ```
/// use tool_sdk::gate::{Gate, GateOutcome, Kept};
/// use tool_sdk::store::InMemoryRunStore;
/// use tool_sdk::{tool, AssistantMessage, ToolCall, ToolRegistry};
///
/// /// Deletes a file.
/// #[tool(confirm)]
/// fn delete_file(path: String) -> String {
///     format!("deleted {path}")
/// }
///
/// /// Lists files.
/// #[tool]
/// fn list_files() -> Vec<String> {
///     vec!["a.txt".into()]
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut registry = ToolRegistry::new();
/// registry.register(DeleteFileTool).unwrap();
/// registry.register(ListFilesTool).unwrap();
///
/// let reply = AssistantMessage::with_tool_calls(vec![
///     ToolCall::new("c1", "list_files", "{}"),
///     ToolCall::new("c2", "delete_file", r#"{"path": "/tmp/a"}"#),
/// ]);
/// let gate = Gate::default();
/// let outcome = gate.execute(&registry, registry.names(), &reply).await;
/// assert_eq!(outcome.paused().map(|turn| turn.awaiting()), Some(&["c2".to_owned()][..]));
///
/// let GateOutcome::Paused(paused) = outcome else { unreachable!() };
/// let decisions = paused.decide().deny("c2", "Not today.").allow_rest().build();
/// // The paused reply waits server-side; the person's client gets its id.
/// let store = InMemoryRunStore::new();
/// gate.keep(&store, &paused).await.unwrap();
/// let kept = Kept::Stored { store: &store, id: paused.id() };
/// let results = gate.resume(&registry, kept, &decisions).await.unwrap();
/// assert_eq!(results[0].to_message().content, r#"["a.txt"]"#);
/// assert_eq!(results[1].to_message().content, "Not today.");
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Gate {
    policy: ConfirmationPolicy,
}

/// What was decided for one call, before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resolution {
    /// Run it.
    Run,
    /// A person denied it; the model reads the message.
    Denied(String),
    /// Allowed, but its tool was not offered in the request: it never runs.
    NotOffered,
    /// Run it with these arguments (JSON text), which a person gave in place of the model's.
    RunEdited(String),
}

/// One call of a reply and how it ended.
#[derive(Debug)]
pub struct CallOutcome {
    /// The call's key in its reply.
    pub key: String,
    /// The call as the model gave it.
    pub call: ToolCall,
    /// How it ended.
    pub result: CallResult,
}

/// How a call ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CallResult {
    /// It ran: the tool's output or a classified error.
    Ran(Result<ToolOutput, ToolError>),
    /// It ran with arguments a person gave in place of the model's: the tool's output or a
    /// classified error. The model reads that a person changed them, and to what. Boxed: it is
    /// rare, and every call's result is this size.
    RanEdited(Box<EditedRun>),
    /// A person denied it; it never ran.
    Denied(String),
    /// Its tool was not offered in the request; it never ran.
    NotOffered,
    /// The run was cancelled before it started (in a loop); it never ran.
    NotStarted,
    /// The run's budget of tool calls had no room for its reply's calls (in a loop); it never
    /// ran.
    OverBudget,
}

/// A call that ran with arguments a person gave in place of the model's
/// ([`CallResult::RanEdited`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EditedRun {
    /// The arguments it ran with, as JSON text.
    pub arguments: String,
    /// The tool's output or a classified error.
    pub result: Result<ToolOutput, ToolError>,
}

impl CallOutcome {
    /// The message that answers the call, for the model.
    pub fn to_message(&self) -> ToolResultMessage {
        let (content, parts, status) = self
            .result
            .clone()
            .into_answer(&self.call, ToolError::model_message);
        ToolResultMessage {
            call_id: self.call.id.clone(),
            key: self.key.clone(),
            name: self.call.name.clone(),
            content,
            parts,
            status,
        }
    }
}

impl CallResult {
    /// What the tool gave, when it ran (with the model's arguments or a person's).
    pub fn ran(&self) -> Option<&Result<ToolOutput, ToolError>> {
        match self {
            CallResult::Ran(result) => Some(result),
            CallResult::RanEdited(edited) => Some(&edited.result),
            _ => None,
        }
    }

    /// What the model reads for `call` (the text, the parts, the status), wherever the call
    /// was decided: `error_text` words a tool's error.
    pub(crate) fn into_answer(
        self,
        call: &ToolCall,
        error_text: impl FnOnce(&ToolError) -> String,
    ) -> (String, Vec<Part>, ToolResultStatus) {
        match self {
            CallResult::Ran(Ok(output)) => {
                let (content, parts) = output.into_content_and_parts();
                (content, parts, ToolResultStatus::Success)
            }
            CallResult::Ran(Err(error)) => {
                (error_text(&error), Vec::new(), ToolResultStatus::Error)
            }
            CallResult::RanEdited(edited) => {
                let EditedRun { arguments, result } = *edited;
                let (content, parts, status) =
                    CallResult::Ran(result).into_answer(call, error_text);
                let content = format!(
                    "A person changed this call's arguments before it ran; it ran with \
                     {arguments}\n\n{content}"
                );
                (content, parts, status)
            }
            CallResult::Denied(message) => (message, Vec::new(), ToolResultStatus::Denied),
            CallResult::NotOffered => (
                format!("Error: the tool `{}` is not available here.", call.name),
                Vec::new(),
                ToolResultStatus::Error,
            ),
            CallResult::NotStarted => (
                "Error: this call did not run: the run was cancelled.".to_owned(),
                Vec::new(),
                ToolResultStatus::Error,
            ),
            CallResult::OverBudget => (
                "Error: this call did not run: the run's budget of tool calls is spent.".to_owned(),
                Vec::new(),
                ToolResultStatus::Error,
            ),
        }
    }
}

impl Gate {
    /// A gate with `policy` (in addition to what tools declare themselves).
    pub fn new(policy: ConfirmationPolicy) -> Self {
        Self { policy }
    }

    /// The policy in use.
    pub fn policy(&self) -> &ConfirmationPolicy {
        &self.policy
    }

    /// The keys of the calls of `reply` that need a decision, in reply order. A call that
    /// cannot run (its tool is not registered, its arguments do not decode:
    /// [`ToolRegistry::check`]) needs none: it fails with its error, and no one is asked to
    /// allow what cannot run.
    pub fn awaiting(&self, registry: &ToolRegistry, reply: &AssistantMessage) -> Vec<String> {
        self.awaiting_among(
            reply,
            |name| registry.get(name).map(|tool| &**tool),
            |call| registry.check(&call.name, &call.arguments),
        )
    }

    /// The keys of the calls of `reply` that need a decision, each call's tool found by `tool`
    /// and checked by `check` (see [`awaiting`](Self::awaiting)).
    pub(crate) fn awaiting_among<'t>(
        &self,
        reply: &AssistantMessage,
        tool: impl Fn(&str) -> Option<&'t dyn Tool>,
        check: impl Fn(&ToolCall) -> Result<(), ToolError>,
    ) -> Vec<String> {
        tool_call_keys(reply)
            .into_iter()
            .zip(&reply.tool_calls)
            // The check decodes the arguments: only the calls a person would be asked about
            // pay for it.
            .filter(|(_, call)| {
                self.policy.needs_confirmation(call, tool(&call.name)) && check(call).is_ok()
            })
            .map(|(key, _)| key)
            .collect()
    }

    /// Pauses `reply` if any call needs a decision; `None` when none does.
    /// `request_tools` are the names of the tools the request offered.
    pub fn check(
        &self,
        registry: &ToolRegistry,
        request_tools: impl IntoIterator<Item = impl AsRef<str>>,
        reply: &AssistantMessage,
    ) -> Option<PausedTurn> {
        let awaiting = self.awaiting(registry, reply);
        (!awaiting.is_empty()).then(|| {
            PausedTurn::new(reply.clone(), request_tools, awaiting)
                .with_deadline_in(self.policy.deadline())
        })
    }

    /// Checks `decisions` against the paused reply: made for this pause, one per call, keys
    /// distinct and known, allowances bound to the calls' current fingerprints, and given
    /// before the pause's [deadline](PausedTurn::deadline) (past it, a call may only be
    /// denied). Gives each call's resolution, in reply order; nothing runs.
    pub fn resolve(
        &self,
        paused: &PausedTurn,
        decisions: &ToolCallDecisions,
    ) -> Result<Vec<Resolution>, GateError> {
        self.resolve_at(paused, decisions, SystemTime::now())
    }

    /// [`resolve`](Self::resolve), with the time it is `now`.
    fn resolve_at(
        &self,
        paused: &PausedTurn,
        decisions: &ToolCallDecisions,
        now: SystemTime,
    ) -> Result<Vec<Resolution>, GateError> {
        if decisions.pause() != paused.pause() {
            return Err(GateError::OtherPause {
                decisions_for: decisions.pause().clone(),
                paused_at: paused.pause().clone(),
            });
        }
        let reply = paused.reply();
        let keys = tool_call_keys(reply);
        let mut seen = HashSet::new();
        for decision in decisions.decisions() {
            if !keys.contains(&decision.key) {
                return Err(GateError::UnknownKey {
                    key: decision.key.clone(),
                });
            }
            if !seen.insert(decision.key.as_str()) {
                return Err(GateError::DuplicateDecision {
                    key: decision.key.clone(),
                });
            }
        }
        let offered: HashSet<&str> = paused.request_tools().iter().map(String::as_str).collect();
        keys.iter()
            .zip(&reply.tool_calls)
            .map(|(key, call)| {
                let decision = decisions
                    .decision_on(key)
                    .ok_or_else(|| GateError::MissingDecision { key: key.clone() })?;
                let (bound, edited) = match &decision.verdict {
                    Verdict::Deny { message } => return Ok(Resolution::Denied(message.clone())),
                    Verdict::Allow { fingerprint } => (fingerprint, None),
                    Verdict::AllowEdited {
                        fingerprint,
                        arguments,
                    } => (fingerprint, Some(arguments)),
                };
                if *bound != fingerprint(call) {
                    return Err(GateError::ArgumentsChanged { key: key.clone() });
                }
                // Past the deadline, a call that waited may only be denied; the others of the
                // reply never needed anyone.
                let late = paused.deadline().filter(|at| *at <= now);
                if let Some(deadline) = late.filter(|_| paused.awaiting().contains(key)) {
                    return Err(GateError::DeadlinePassed {
                        key: key.clone(),
                        deadline: unix_seconds(deadline),
                    });
                }
                Ok(match edited {
                    _ if !offered.contains(call.name.as_str()) => Resolution::NotOffered,
                    Some(arguments) => Resolution::RunEdited(arguments.clone()),
                    None => Resolution::Run,
                })
            })
            .collect()
    }
}

/// What gating a reply gave: every call's outcome, or a pause for decisions.
// Made once per reply and matched at once: a box would cost more than the size it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
#[non_exhaustive]
pub enum GateOutcome {
    /// No call needed a decision; all ran, results in reply order.
    Completed(Vec<CallOutcome>),
    /// Some calls need a decision; none ran.
    Paused(PausedTurn),
}

impl GateOutcome {
    /// The paused turn, when calls wait for decisions: its
    /// [`awaiting`](PausedTurn::awaiting) keys name them.
    pub fn paused(&self) -> Option<&PausedTurn> {
        match self {
            Self::Paused(turn) => Some(turn),
            Self::Completed(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn past_the_deadline_a_waiting_call_may_only_be_denied() {
        let reply = AssistantMessage::with_tool_calls(vec![
            ToolCall::new("c1", "pay", r#"{"euros":5}"#),
            ToolCall::new("c2", "look", "{}"),
        ]);
        let turn = PausedTurn::new(reply, ["pay", "look"], ["c1"])
            .with_deadline_in(Some(Duration::from_secs(60)));
        let gate = Gate::default();
        let allowed = turn.decide().allow_rest().build();
        let denied = turn.decide().deny("c1", "no").allow_rest().build();
        let before = SystemTime::now();
        let after = before + Duration::from_secs(61);

        assert!(gate.resolve_at(&turn, &allowed, before).is_ok());
        let late = gate.resolve_at(&turn, &allowed, after).unwrap_err();
        assert!(
            matches!(&late, GateError::DeadlinePassed { key, .. } if key == "c1"),
            "{late:?}"
        );
        // A denial, and the calls of the reply that needed no one, still go.
        assert_eq!(
            gate.resolve_at(&turn, &denied, after).unwrap(),
            [Resolution::Denied("no".to_owned()), Resolution::Run]
        );
    }
}
