//! How the loop behaves: rounds, concurrency, and what each kind of tool error leads to.

use std::collections::HashMap;

use crate::model::ChatOptions;
use crate::run::Budget;

use crate::define::{ToolError, ToolErrorKind};

/// Rounds allowed by default before the loop stops with
/// [`LoopStatus::MaxRoundsReached`](crate::run::LoopStatus::MaxRoundsReached).
pub const DEFAULT_MAX_ROUNDS: usize = 10;

/// How the calls of one reply run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Concurrency {
    /// One after another, in reply order.
    #[default]
    Sequential,
    /// Up to this many at a time; results still come in reply order.
    Bounded(usize),
    /// Calls of read-only tools ([`ToolOptions::read_only`](crate::define::ToolOptions::read_only),
    /// `#[tool(read_only)]`) up to this many at a time; any other call alone, once every call
    /// before it has ended, and before any after it starts. Reads between two writes see the
    /// first and not the second, as in reply order; results still come in reply order.
    ReadsTogether(usize),
}

/// What a failed call leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorAction {
    /// The error goes back to the model as the call's result, so it can correct itself.
    ToModel,
    /// The run fails: every compensable call that succeeded so far is rolled back.
    RollBack,
}

/// What each [`ToolErrorKind`] leads to. By default, what
/// [`ToolErrorKind::is_recoverable`] says (the table on [`ToolErrorKind`]): mistakes the model
/// can fix (unknown tool, bad arguments) go back to it, and failures of the tool itself (its
/// `Err`, a panic, a timeout, a missing context) roll the run back. It is keyed by kind, the
/// error's data aside ([`ToolErrorKind`] says why).
///
/// ```
/// use tool_sdk::run::{ErrorAction, ErrorPolicy};
/// use tool_sdk::{ToolError, ToolErrorKind};
///
/// let policy = ErrorPolicy::new().with_action(ToolErrorKind::ExecutionFailed, ErrorAction::ToModel);
/// let failed = ToolError::failed("book", "no seat left");
/// assert_eq!(policy.action(&failed), ErrorAction::ToModel);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorPolicy {
    overrides: HashMap<ToolErrorKind, ErrorAction>,
}

impl ErrorPolicy {
    /// The default policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets what errors of `kind` lead to.
    pub fn with_action(mut self, kind: ToolErrorKind, action: ErrorAction) -> Self {
        self.overrides.insert(kind, action);
        self
    }

    /// What `error` leads to: the action set for its kind, else its kind's default.
    pub fn action(&self, error: &ToolError) -> ErrorAction {
        let kind = error.kind();
        if let Some(action) = self.overrides.get(&kind) {
            return *action;
        }
        if kind.is_recoverable() {
            ErrorAction::ToModel
        } else {
            ErrorAction::RollBack
        }
    }
}

/// Options of a [`ToolLoop`](crate::run::ToolLoop).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoopOptions {
    /// Model calls allowed in one run (default [`DEFAULT_MAX_ROUNDS`]).
    pub max_rounds: usize,
    /// How the calls of one reply run.
    pub concurrency: Concurrency,
    /// What each kind of tool error leads to.
    pub errors: ErrorPolicy,
    /// Options sent with every request.
    pub chat: ChatOptions,
    /// Stream replies when the model can, starting each tool call as soon as it is complete
    /// (default on).
    pub streaming: bool,
    /// Above this many tools, those declared `Defer::Auto` are offered only once a search
    /// finds them (default [`DEFAULT_DEFER_THRESHOLD`]).
    pub defer_threshold: usize,
    /// Bytes of a call's result the model reads, when its tool sets no limit of its own
    /// ([`ToolOptions::result_limit`](crate::define::ToolOptions::result_limit)); `None` for
    /// no limit (default [`DEFAULT_RESULT_LIMIT`]). A longer result is cut in the middle: its
    /// head and its tail are kept, and a line between them says how much was cut. The whole
    /// result goes to the run's events ([`LoopEvent::ResultCut`](crate::run::LoopEvent::ResultCut)).
    pub result_limit: Option<usize>,
    /// Put each call's arguments and, when it succeeds, its result on its `execute_tool` span
    /// (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`), for whatever the application
    /// exports its spans to (default off: they may hold personal data, and whoever reads the
    /// traces reads them too).
    pub capture_tool_content: bool,
    /// What a run may spend: tokens, tool calls, wall time, cost (default: no limit). See
    /// [`Budget`].
    pub budget: Budget,
}

/// Bytes of a call's result the model reads by default (64 KiB, about 16,000 tokens): enough
/// for any answer meant for it, and a bound on what a tool that returns a whole file or page
/// costs every later request of the run.
pub const DEFAULT_RESULT_LIMIT: usize = 64 * 1024;

/// Tools a run holds before `Defer::Auto` tools are deferred.
pub const DEFAULT_DEFER_THRESHOLD: usize = 30;

impl LoopOptions {
    /// The default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`max_rounds`](Self::with_max_rounds).
    pub fn with_max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Sets [`concurrency`](Self::with_concurrency).
    pub fn with_concurrency(mut self, concurrency: Concurrency) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Sets [`errors`](Self::with_errors).
    pub fn with_errors(mut self, errors: ErrorPolicy) -> Self {
        self.errors = errors;
        self
    }

    /// Sets [`streaming`](Self::with_streaming).
    pub fn with_streaming(mut self, on: bool) -> Self {
        self.streaming = on;
        self
    }

    /// Sets [`defer_threshold`](Self::with_defer_threshold).
    pub fn with_defer_threshold(mut self, tools: usize) -> Self {
        self.defer_threshold = tools;
        self
    }

    /// Sets [`result_limit`](Self::with_result_limit): `None` lets every result through whole.
    ///
    /// ```
    /// use tool_sdk::run::LoopOptions;
    ///
    /// let options = LoopOptions::new().with_result_limit(Some(16 * 1024));
    /// assert_eq!(options.result_limit, Some(16 * 1024));
    /// ```
    pub fn with_result_limit(mut self, bytes: Option<usize>) -> Self {
        self.result_limit = bytes;
        self
    }

    /// Sets [`capture_tool_content`](Self::capture_tool_content).
    ///
    /// ```
    /// use tool_sdk::run::LoopOptions;
    ///
    /// let options = LoopOptions::new().with_capture_tool_content(true);
    /// assert!(options.capture_tool_content);
    /// assert!(!LoopOptions::new().capture_tool_content);
    /// ```
    pub fn with_capture_tool_content(mut self, on: bool) -> Self {
        self.capture_tool_content = on;
        self
    }

    /// Sets [`budget`](Self::budget).
    ///
    /// ```
    /// use tool_sdk::run::{Budget, LoopOptions};
    ///
    /// let options = LoopOptions::new().with_budget(Budget::new().with_tool_calls(20));
    /// assert_ne!(options.budget, Budget::new());
    /// ```
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets [`chat`](Self::with_chat).
    pub fn with_chat(mut self, chat: ChatOptions) -> Self {
        self.chat = chat;
        self
    }
}

impl Default for LoopOptions {
    fn default() -> Self {
        Self {
            max_rounds: DEFAULT_MAX_ROUNDS,
            concurrency: Concurrency::Sequential,
            errors: ErrorPolicy::default(),
            chat: ChatOptions::default(),
            streaming: true,
            defer_threshold: DEFAULT_DEFER_THRESHOLD,
            result_limit: Some(DEFAULT_RESULT_LIMIT),
            capture_tool_content: false,
            budget: Budget::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::define::one_of_each;

    #[test]
    fn the_default_policy_is_what_is_recoverable_says() {
        for error in one_of_each() {
            let expected = if error.is_recoverable() {
                ErrorAction::ToModel
            } else {
                ErrorAction::RollBack
            };
            assert_eq!(ErrorPolicy::new().action(&error), expected, "{error:?}");
        }
        // A tool's own failure and a timeout roll back; the model's mistakes go back to it.
        assert!(!ToolErrorKind::ExecutionFailed.is_recoverable());
        assert!(!ToolErrorKind::TimedOut.is_recoverable());
        assert!(ToolErrorKind::InvalidArguments.is_recoverable());
    }

    #[test]
    fn an_override_changes_only_its_kind() {
        let policy =
            ErrorPolicy::new().with_action(ToolErrorKind::ExecutionFailed, ErrorAction::ToModel);
        for error in one_of_each() {
            let expected = match error {
                ToolError::ExecutionFailed { .. } => ErrorAction::ToModel,
                _ => ErrorPolicy::new().action(&error),
            };
            assert_eq!(policy.action(&error), expected, "{error:?}");
        }
        assert_eq!(
            policy.action(&ToolError::failed("t", "m")),
            ErrorAction::ToModel
        );
        let timed_out = ToolError::TimedOut {
            tool: "t".into(),
            after: std::time::Duration::from_secs(1),
        };
        assert_eq!(policy.action(&timed_out), ErrorAction::RollBack);
    }
}
