//! Which calls need a person's decision before they run.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::define::Tool;

use crate::model::ToolCall;

type CallPredicate = dyn Fn(&ToolCall) -> bool + Send + Sync;

/// Which calls wait for a decision. A call waits when its tool declares so (`#[tool(confirm)]`,
/// `#[tool(confirm = predicate)]`, see [`Tool::needs_confirmation`]), when its tool is named
/// here, or when the predicate set here says so. By default nothing else waits.
///
/// # Examples
///
/// ```
/// use tool_sdk::gate::ConfirmationPolicy;
/// use tool_sdk::ToolCall;
///
/// let policy = ConfirmationPolicy::new()
///     .with_confirmed_tool("delete_file")
///     .with_confirm_when(|call| call.arguments.contains("\"prod\""));
/// assert!(policy.needs_confirmation(&ToolCall::new("1", "delete_file", "{}"), None));
/// assert!(policy.needs_confirmation(&ToolCall::new("2", "deploy", r#"{"env":"prod"}"#), None));
/// assert!(!policy.needs_confirmation(&ToolCall::new("3", "deploy", r#"{"env":"dev"}"#), None));
/// ```
#[derive(Clone, Default)]
pub struct ConfirmationPolicy {
    tools: HashSet<String>,
    /// Every predicate given, in order; any one asking is enough.
    predicates: Vec<Arc<CallPredicate>>,
    /// How long a pause waits for its decisions before its waiting calls are denied.
    deadline: Option<Duration>,
}

impl ConfirmationPolicy {
    /// Only what the tools themselves declare.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every call of the tool named `name` waits for a decision.
    pub fn with_confirmed_tool(mut self, name: impl Into<String>) -> Self {
        self.tools.insert(name.into());
        self
    }

    /// Calls for which `predicate` answers `true` wait for a decision, in addition to the rest:
    /// called several times, the predicates add up (a call waits when any one of them asks).
    pub fn with_confirm_when(
        mut self,
        predicate: impl Fn(&ToolCall) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.predicates.push(Arc::new(predicate));
        self
    }

    /// Gives every pause a deadline, `within` after it began: past it, no call of the pause may
    /// be allowed any more ([`GateError::DeadlinePassed`](crate::gate::GateError::DeadlinePassed)),
    /// and each waiting call is denied with a reason the model reads
    /// ([`PausedTurn::expiry`](crate::store::PausedTurn::expiry)), by whichever comes first:
    /// [`ToolLoop::expire_overdue`](crate::run::ToolLoop::expire_overdue) (which the approval
    /// page's server runs), an approver in the loop's process that has not answered, or the
    /// application. The deadline is kept with the paused turn, sealed with it where the turn
    /// is sealed. By default a pause waits for as long as it takes.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tool_sdk::gate::ConfirmationPolicy;
    ///
    /// let policy = ConfirmationPolicy::new()
    ///     .with_confirmed_tool("wire_money")
    ///     .with_deadline(Duration::from_secs(15 * 60));
    /// assert_eq!(policy.deadline(), Some(Duration::from_secs(900)));
    /// ```
    pub fn with_deadline(mut self, within: Duration) -> Self {
        self.deadline = Some(within);
        self
    }

    /// How long a pause waits for its decisions, when the policy gives it a deadline
    /// ([`with_deadline`](Self::with_deadline)).
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// Whether the policy adds nothing to what tools declare.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.predicates.is_empty()
    }

    /// Whether `call` waits for a decision; `tool` is the registered tool it names, if any.
    pub fn needs_confirmation(&self, call: &ToolCall, tool: Option<&dyn Tool>) -> bool {
        tool.is_some_and(|tool| tool.needs_confirmation(&call.arguments))
            || self.tools.contains(&call.name)
            || self.predicates.iter().any(|predicate| predicate(call))
    }
}

impl fmt::Debug for ConfirmationPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfirmationPolicy")
            .field("tools", &self.tools)
            .field("predicates", &self.predicates.len())
            .field("deadline", &self.deadline)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_add_up() {
        let policy = ConfirmationPolicy::new()
            .with_confirm_when(|call| call.arguments.contains("prod"))
            .with_confirm_when(|call| call.name == "wire_money");
        assert!(policy.needs_confirmation(&ToolCall::new("1", "deploy", r#"{"env":"prod"}"#), None));
        assert!(policy.needs_confirmation(&ToolCall::new("2", "wire_money", "{}"), None));
        assert!(!policy.needs_confirmation(&ToolCall::new("3", "deploy", r#"{"env":"dev"}"#), None));
    }
}
