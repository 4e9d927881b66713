//! The steps of the model: what may happen next in a state, and what it leads to. Each step is
//! one store operation (one `RunStore` call), one effect in the world, or one move of the
//! environment; the store's answer (`Ok` or `Lost`) is decided by the state it meets.

use std::fmt;

use super::model::Model;
use super::state::{Proc, State};
use super::{recoverer, runner, world};

/// One atomic step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A: `begin`.
    Begin,
    /// A starts its next call (no store operation).
    CallStarts(u8),
    /// The call's effect happens in the world.
    CallTakesEffect(u8),
    /// The call returns success to A, which records it: `record`.
    CallReturns(u8),
    /// The call fails (without effect): A rolls back.
    CallFails(u8),
    /// A's heartbeat while running: `renew`.
    Heartbeat,
    /// A ends the run successfully: `finish`.
    EndRun,
    /// Before compensating a recorded call: `renew`, the ownership check.
    Renew(Proc, u8),
    /// A compensating action's effect happens in the world.
    CompensationTakesEffect(Proc, u8),
    /// A compensating action returns: `compensated(Done)` (no write for a local-only call).
    CompensationReturns(Proc, u8),
    /// A compensating action times out: `compensated(TimedOut)` (no write for a local-only
    /// call). When it had not taken effect yet, `late` says whether it still will.
    CompensationTimesOut {
        /// Whose action.
        by: Proc,
        /// The call it undoes.
        call: u8,
        /// Whether it will take effect after all.
        late: bool,
    },
    /// A timed-out compensating action takes effect after all.
    LateCompensation(u8),
    /// After a rollback or a recovery: `finish`.
    Finish(Proc),
    /// A recovering process: `claim_orphan`.
    Claim(Proc),
    /// The environment: the owner's lease expires (it stalled, or its heartbeat could not reach
    /// the store).
    Expire(Proc),
    /// A process crashes.
    Crash(Proc),
}

impl Model {
    /// Every step possible in `state`; none in a terminal state.
    pub fn steps(&self, state: &State) -> Vec<Step> {
        let mut steps = Vec::new();
        runner::steps(self, state, &mut steps);
        for by in Proc::RECOVERERS {
            recoverer::steps(self, state, by, &mut steps);
        }
        world::steps(state, &mut steps);
        steps
    }

    /// The state `step` leads to from `state`.
    pub fn apply(&self, state: &State, step: Step) -> State {
        let mut next = *state;
        match step {
            Step::Begin
            | Step::CallStarts(_)
            | Step::CallTakesEffect(_)
            | Step::CallReturns(_)
            | Step::CallFails(_)
            | Step::Heartbeat
            | Step::EndRun
            | Step::Renew(Proc::A, _)
            | Step::CompensationTakesEffect(Proc::A, _)
            | Step::CompensationReturns(Proc::A, _)
            | Step::CompensationTimesOut { by: Proc::A, .. }
            | Step::Finish(Proc::A) => runner::apply(self, &mut next, step),
            Step::Renew(..)
            | Step::CompensationTakesEffect(..)
            | Step::CompensationReturns(..)
            | Step::CompensationTimesOut { .. }
            | Step::Finish(_)
            | Step::Claim(_) => recoverer::apply(self, &mut next, step),
            Step::LateCompensation(_) | Step::Expire(_) | Step::Crash(_) => {
                world::apply(&mut next, step)
            }
        }
        next
    }
}

/// A call's name in traces: c1, c2, …
pub(crate) struct Call(pub(crate) u8);

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{}", self.0 + 1)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Step::Begin => write!(f, "A begin"),
            Step::CallStarts(c) => write!(f, "A starts {}", Call(c)),
            Step::CallTakesEffect(c) => write!(f, "{} takes effect", Call(c)),
            Step::CallReturns(c) => write!(f, "{0} returns success; A record({0})", Call(c)),
            Step::CallFails(c) => write!(f, "{} fails; A rolls back", Call(c)),
            Step::Heartbeat => write!(f, "A renew (heartbeat)"),
            Step::EndRun => write!(f, "A finish (the run succeeded)"),
            Step::Renew(by, c) => write!(f, "{by:?} renew before compensating {}", Call(c)),
            Step::CompensationTakesEffect(by, c) => {
                write!(f, "{by:?}'s compensation of {} takes effect", Call(c))
            }
            Step::CompensationReturns(by, c) => {
                write!(
                    f,
                    "{by:?}'s compensation of {0} returns; compensated({0}, Done)",
                    Call(c)
                )
            }
            Step::CompensationTimesOut { by, call, late } => write!(
                f,
                "{by:?}'s compensation of {0} times out{1}; compensated({0}, TimedOut) unless \
                 local-only",
                Call(call),
                if late { " (takes effect later)" } else { "" }
            ),
            Step::LateCompensation(c) => {
                write!(f, "a timed-out compensation of {} takes effect", Call(c))
            }
            Step::Finish(by) => write!(f, "{by:?} finish"),
            Step::Claim(by) => write!(f, "{by:?} claim_orphan"),
            Step::Expire(by) => write!(f, "{by:?}'s lease expires"),
            Step::Crash(by) => write!(f, "{by:?} crashes"),
        }
    }
}
