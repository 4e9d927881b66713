//! What a run may spend: tokens as the model reports them, tool calls, wall time, and a cost
//! the application computes; and which limit a run crossed.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::model::Usage;
use crate::store::BudgetMark;

/// The cost of a run's usage, in the application's unit (dollars, credits): see
/// [`Budget::with_cost`].
type CostFn = Arc<dyn Fn(&Usage) -> f64 + Send + Sync>;

/// What a run may spend ([`LoopOptions::with_budget`](crate::run::LoopOptions::with_budget)).
/// Each limit is off until set; the default budget has none, and costs a run nothing.
///
/// A run stops with [`LoopStatus::BudgetExhausted`](crate::run::LoopStatus::BudgetExhausted)
/// before the step that a limit forbids:
///
/// - **tokens** and **cost**, before each request to the model, once what the model reported
///   for the run's requests so far has reached the limit. A request's usage is known only once
///   it is answered, so the last request may take a run past its limit: the limit bounds the
///   requests made, not the last one's size. A model that reports no usage spends no tokens:
///   the HTTP models report it with whole and streamed answers alike (an OpenAI-compatible
///   server streams it when it honours `stream_options.include_usage`).
/// - **tool calls**, when a reply's calls would take the run past the limit: none of that
///   reply's calls runs, each is answered that it did not run, and the run stops with its
///   conversation valid. Every call the model makes counts, whether it runs, is denied or names
///   no tool. With a call limit the loop does not stream replies, so that no call starts
///   before the whole reply is counted.
/// - **wall time**, before each request and before a reply's calls run (a streamed reply's
///   calls start as they arrive, before the reply is whole: for them, before the request),
///   measured from when the run started or was resumed: the time a paused run waits for a
///   person does not count.
///
/// Token and call counts are kept with the run, across a pause. The run's work is kept, as it
/// is at the round limit: nothing is rolled back, the last reply's calls answered and the
/// conversation ready to go on in a new run with a larger budget.
///
/// With [`OnExhausted::Ask`] a limit reached pauses the run instead, for a person to extend
/// the budget, as a call a policy gates does: see [`OnExhausted`].
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::Usage;
/// use tool_sdk::run::{Budget, LoopOptions};
///
/// // $3 per million tokens read, $15 per million written, at most $0.50 a run.
/// let price = |usage: &Usage| {
///     (usage.input_tokens as f64 * 3.0 + usage.output_tokens as f64 * 15.0) / 1e6
/// };
/// let budget = Budget::new()
///     .with_total_tokens(200_000)
///     .with_tool_calls(40)
///     .with_wall_time(Duration::from_secs(120))
///     .with_cost(0.50, price);
/// let options = LoopOptions::new().with_budget(budget);
/// ```
#[derive(Clone, Default)]
pub struct Budget {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    total_tokens: Option<u64>,
    tool_calls: Option<usize>,
    wall_time: Option<Duration>,
    cost: Option<(f64, CostFn)>,
    on_exhausted: OnExhausted,
}

/// What a run does when it reaches a limit of its [`Budget`].
///
/// ```
/// use tool_sdk::run::{Budget, OnExhausted};
///
/// let budget = Budget::new()
///     .with_total_tokens(100_000)
///     .with_on_exhausted(OnExhausted::Ask);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnExhausted {
    /// The run stops with [`LoopStatus::BudgetExhausted`](crate::run::LoopStatus::BudgetExhausted).
    #[default]
    Stop,
    /// The run pauses ([`LoopStatus::Paused`](crate::run::LoopStatus::Paused)) for a person to
    /// extend the budget, kept where every paused run is (the store, the approval page, an
    /// [`Approver`](crate::run::Approver)), and resumed with decisions as every paused run is;
    /// [`PausedTurn::budget_reached`](crate::store::PausedTurn::budget_reached) says which
    /// limit, and the observers are told ([`Observer::budget_exhausted`], then
    /// [`Observer::budget_extended`] when a person extends it). Allowing grants the run a whole
    /// budget again, counted from where it stands when allowed (each limit's amount again on
    /// top of what it had used; the wall time counts from the resume, as always); the decision
    /// is bound to the pause, so it extends one run once.
    ///
    /// - A limit reached before a request (tokens, cost, time) pauses on a call of the loop's
    ///   own, `tool_sdk.extend_budget` (a name no tool can have), whose arguments say what was
    ///   reached. It never enters the conversation: allowed, the run goes on to its request;
    ///   denied, it ends with `BudgetExhausted`.
    /// - A reply whose calls would pass the call limit (or the time) pauses with each call
    ///   that can run waiting (one of an unknown tool, or with arguments its tool does not
    ///   take, is answered so whatever is decided): allowing any runs the allowed ones, answers
    ///   the denied ones that a person denied them, and the run goes on, the calls allowed
    ///   counting against nothing; denying them all answers them so and ends the run with
    ///   `BudgetExhausted`. With a wall time that asks, replies are not streamed, so that a
    ///   reply is held whole.
    ///
    /// Such a pause is resumed by its loop ([`ToolLoop::resume`], or the loop's page and
    /// approver), not by the gate alone
    /// ([`GateError::BudgetPause`](crate::gate::GateError::BudgetPause)). A cost that is not a
    /// finite number is never asked about (no extension could cover it): the run stops.
    ///
    /// [`Observer::budget_exhausted`]: crate::run::Observer::budget_exhausted
    /// [`Observer::budget_extended`]: crate::run::Observer::budget_extended
    /// [`ToolLoop::resume`]: crate::run::ToolLoop::resume
    Ask,
}

/// A limit a run reached, with what the run used and what it was allowed (its extensions
/// included): the run's
/// [`LoopStatus::BudgetExhausted`](crate::run::LoopStatus::BudgetExhausted).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reached", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BudgetLimit {
    /// The tokens the model read.
    InputTokens {
        /// Reported for the run's requests.
        used: u64,
        /// Allowed.
        limit: u64,
    },
    /// The tokens the model wrote.
    OutputTokens {
        /// Reported for the run's requests.
        used: u64,
        /// Allowed.
        limit: u64,
    },
    /// The tokens read and written.
    TotalTokens {
        /// Reported for the run's requests.
        used: u64,
        /// Allowed.
        limit: u64,
    },
    /// The tool calls.
    ToolCalls {
        /// The calls the run would have made with the last reply's (which did not run).
        used: usize,
        /// Allowed.
        limit: usize,
    },
    /// The time the run took.
    WallTime {
        /// Since the run started or was resumed.
        used: Duration,
        /// Allowed.
        limit: Duration,
    },
    /// The application's cost of the run's usage ([`Budget::with_cost`]).
    Cost {
        /// The cost of the usage reported.
        used: f64,
        /// Allowed.
        limit: f64,
    },
}

impl fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InputTokens { used, limit } => {
                write!(f, "{used} input tokens used of {limit}")
            }
            Self::OutputTokens { used, limit } => {
                write!(f, "{used} output tokens used of {limit}")
            }
            Self::TotalTokens { used, limit } => write!(f, "{used} tokens used of {limit}"),
            Self::ToolCalls { used, limit } => {
                write!(f, "{used} tool calls asked for, {limit} allowed")
            }
            Self::WallTime { used, limit } => write!(f, "{used:?} taken of {limit:?}"),
            Self::Cost { used, limit } => write!(f, "a cost of {used} reached, {limit} allowed"),
        }
    }
}

impl Budget {
    /// No limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `tokens` read by the model in the run (its prompts, summed over requests).
    pub fn with_input_tokens(mut self, tokens: u64) -> Self {
        self.input_tokens = Some(tokens);
        self
    }

    /// At most `tokens` written by the model in the run.
    pub fn with_output_tokens(mut self, tokens: u64) -> Self {
        self.output_tokens = Some(tokens);
        self
    }

    /// At most `tokens` read and written in the run.
    pub fn with_total_tokens(mut self, tokens: u64) -> Self {
        self.total_tokens = Some(tokens);
        self
    }

    /// At most `calls` tool calls in the run.
    pub fn with_tool_calls(mut self, calls: usize) -> Self {
        self.tool_calls = Some(calls);
        self
    }

    /// At most `time` from the run's start (or its resumption) to its last step.
    pub fn with_wall_time(mut self, time: Duration) -> Self {
        self.wall_time = Some(time);
        self
    }

    /// At most `limit` of what `cost` makes of the run's usage so far (summed over its
    /// requests). `cost` should grow with the usage; it is called before each request.
    pub fn with_cost(
        mut self,
        limit: f64,
        cost: impl Fn(&Usage) -> f64 + Send + Sync + 'static,
    ) -> Self {
        self.cost = Some((limit, Arc::new(cost)));
        self
    }

    /// What a run does when it reaches a limit (default [`OnExhausted::Stop`]).
    pub fn with_on_exhausted(mut self, on_exhausted: OnExhausted) -> Self {
        self.on_exhausted = on_exhausted;
        self
    }

    /// Whether reaching `limit` pauses the run for a person, rather than stopping it. A cost
    /// that is not a finite number, used or allowed, is never asked about: no extension could
    /// cover it, and it could not be written down with the pause.
    pub(crate) fn asks_about(&self, limit: &BudgetLimit) -> bool {
        let extensible = match limit {
            BudgetLimit::Cost { used, limit } => used.is_finite() && limit.is_finite(),
            _ => true,
        };
        self.on_exhausted == OnExhausted::Ask && extensible
    }

    /// Whether each reply must be whole before any of its calls starts, so that its calls are
    /// counted (a call limit) or held for a person (a wall time that asks) together: replies are
    /// then not streamed.
    pub(crate) fn holds_replies(&self) -> bool {
        self.tool_calls.is_some()
            || (self.wall_time.is_some() && self.on_exhausted == OnExhausted::Ask)
    }

    /// When the clock starts for a run: now, if a wall time is set (else the clock is never
    /// read).
    pub(crate) fn start_clock(&self) -> Option<Instant> {
        self.wall_time.map(|_| Instant::now())
    }

    /// The limit that forbids another request to the model, given the run's `usage`, its
    /// clock, and what it had used `since` a person last extended its budget (each limit counts
    /// from there).
    pub(crate) fn before_request(
        &self,
        usage: &Usage,
        started: Option<Instant>,
        since: &BudgetMark,
    ) -> Option<BudgetLimit> {
        let reached = |limit: Option<u64>, used: u64, from: u64| {
            limit
                .map(|limit| limit.saturating_add(from))
                .filter(|limit| used >= *limit)
        };
        let from = since.usage;
        if let Some(limit) = reached(self.input_tokens, usage.input_tokens, from.input_tokens) {
            return Some(BudgetLimit::InputTokens {
                used: usage.input_tokens,
                limit,
            });
        }
        if let Some(limit) = reached(self.output_tokens, usage.output_tokens, from.output_tokens) {
            return Some(BudgetLimit::OutputTokens {
                used: usage.output_tokens,
                limit,
            });
        }
        if let Some(limit) = reached(self.total_tokens, usage.total(), from.total()) {
            return Some(BudgetLimit::TotalTokens {
                used: usage.total(),
                limit,
            });
        }
        if let Some((limit, cost)) = &self.cost {
            let used = cost(usage);
            let limit = if from.is_zero() {
                *limit
            } else {
                limit + cost(&from)
            };
            // A cost that is not a number is past any limit.
            if used.is_nan() || used >= limit {
                return Some(BudgetLimit::Cost { used, limit });
            }
        }
        self.out_of_time(started)
    }

    /// The limit that forbids running a reply of `asked` calls, after `made` calls in the run,
    /// counting from the calls made `since` a person last extended its budget.
    pub(crate) fn before_calls(
        &self,
        made: usize,
        asked: usize,
        started: Option<Instant>,
        since: &BudgetMark,
    ) -> Option<BudgetLimit> {
        if let Some(limit) = self.tool_calls {
            let limit = limit.saturating_add(since.calls);
            let used = made.saturating_add(asked);
            if used > limit {
                return Some(BudgetLimit::ToolCalls { used, limit });
            }
        }
        self.out_of_time(started)
    }

    fn out_of_time(&self, started: Option<Instant>) -> Option<BudgetLimit> {
        let (limit, started) = (self.wall_time?, started?);
        let used = started.elapsed();
        (used >= limit).then_some(BudgetLimit::WallTime { used, limit })
    }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Budget")
            .field("input_tokens", &self.input_tokens)
            .field("output_tokens", &self.output_tokens)
            .field("total_tokens", &self.total_tokens)
            .field("tool_calls", &self.tool_calls)
            .field("wall_time", &self.wall_time)
            .field("cost", &self.cost.as_ref().map(|(limit, _)| limit))
            .field("on_exhausted", &self.on_exhausted)
            .finish()
    }
}

/// Budgets are equal when their limits are and their cost is the same function (the same
/// `Arc`): two closures cannot be compared.
impl PartialEq for Budget {
    fn eq(&self, other: &Self) -> bool {
        let cost = match (&self.cost, &other.cost) {
            (None, None) => true,
            (Some((a, f)), Some((b, g))) => a == b && Arc::ptr_eq(f, g),
            _ => false,
        };
        cost && self.input_tokens == other.input_tokens
            && self.output_tokens == other.output_tokens
            && self.total_tokens == other.total_tokens
            && self.tool_calls == other.tool_calls
            && self.wall_time == other.wall_time
            && self.on_exhausted == other.on_exhausted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_limit_forbids_nothing() {
        let budget = Budget::new();
        let spent = Usage::new(u64::MAX, u64::MAX);
        assert_eq!(
            budget.before_request(&spent, None, &BudgetMark::default()),
            None
        );
        assert_eq!(
            budget.before_calls(usize::MAX, usize::MAX, None, &BudgetMark::default()),
            None
        );
        assert_eq!(budget.start_clock(), None);
    }

    #[test]
    fn a_limit_is_reached_at_its_value_and_calls_past_it() {
        let budget = Budget::new().with_total_tokens(10).with_tool_calls(3);
        assert_eq!(
            budget.before_request(&Usage::new(4, 5), None, &BudgetMark::default()),
            None
        );
        assert_eq!(
            budget.before_request(&Usage::new(5, 5), None, &BudgetMark::default()),
            Some(BudgetLimit::TotalTokens {
                used: 10,
                limit: 10
            })
        );
        assert_eq!(
            budget.before_calls(1, 2, None, &BudgetMark::default()),
            None
        );
        assert_eq!(
            budget.before_calls(2, 2, None, &BudgetMark::default()),
            Some(BudgetLimit::ToolCalls { used: 4, limit: 3 })
        );
    }

    #[test]
    fn a_cost_that_is_not_a_number_is_past_its_limit() {
        let budget = Budget::new().with_cost(1.0, |_| f64::NAN);
        assert!(matches!(
            budget.before_request(&Usage::default(), None, &BudgetMark::default()),
            Some(BudgetLimit::Cost { .. })
        ));
        // Not asked about: no extension could cover it.
        let asking = budget.with_on_exhausted(OnExhausted::Ask);
        let reached = asking
            .before_request(&Usage::default(), None, &BudgetMark::default())
            .unwrap();
        assert!(!asking.asks_about(&reached));
    }

    #[test]
    fn an_extension_grants_each_limit_again_from_where_the_run_stood() {
        let budget = Budget::new()
            .with_total_tokens(10)
            .with_tool_calls(3)
            .with_cost(1.0, |usage| usage.total() as f64 / 10.0);
        // Extended when the run had used 25 tokens (past its 10) and made 4 calls.
        let since = BudgetMark {
            usage: Usage::new(25, 0),
            calls: 4,
        };
        assert_eq!(
            budget.before_request(&Usage::new(34, 0), None, &since),
            None
        );
        assert_eq!(
            budget.before_request(&Usage::new(35, 0), None, &since),
            Some(BudgetLimit::TotalTokens {
                used: 35,
                limit: 35
            })
        );
        assert_eq!(budget.before_calls(5, 2, None, &since), None);
        assert_eq!(
            budget.before_calls(5, 3, None, &since),
            Some(BudgetLimit::ToolCalls { used: 8, limit: 7 })
        );
        // The cost counts from the cost of what was used then: 2.5 + 1.0.
        let cost_only = Budget::new().with_cost(1.0, |usage| usage.total() as f64 / 10.0);
        assert_eq!(
            cost_only.before_request(&Usage::new(34, 0), None, &since),
            None
        );
        assert!(matches!(
            cost_only.before_request(&Usage::new(35, 0), None, &since),
            Some(BudgetLimit::Cost { limit, .. }) if (limit - 3.5).abs() < 1e-9
        ));
        // Counts saturate rather than wrap.
        let far = BudgetMark {
            usage: Usage::new(u64::MAX, u64::MAX),
            calls: usize::MAX,
        };
        assert_eq!(budget.before_calls(usize::MAX, 0, None, &far), None);
        assert_eq!(
            Budget::new().with_total_tokens(5).before_request(
                &Usage::new(u64::MAX - 1, 0),
                None,
                &far
            ),
            None
        );
    }

    #[test]
    fn a_limit_reads_back_as_it_was_written() {
        let limits = [
            BudgetLimit::TotalTokens {
                used: 20,
                limit: 10,
            },
            BudgetLimit::ToolCalls { used: 4, limit: 3 },
            BudgetLimit::WallTime {
                used: Duration::from_millis(1500),
                limit: Duration::from_secs(1),
            },
            BudgetLimit::Cost {
                used: 0.75,
                limit: 0.5,
            },
        ];
        for limit in limits {
            let written = serde_json::to_value(limit).unwrap();
            assert_eq!(
                serde_json::from_value::<BudgetLimit>(written).unwrap(),
                limit
            );
        }
    }
}
