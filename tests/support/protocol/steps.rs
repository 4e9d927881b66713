//! The steps of the model: what may happen next in a state, and what it leads to. Each step is
//! one store operation (one `RunStore` call), one effect in the world, or one move of the
//! environment; the store's answer (`Ok`, `Lost`, already decided) is decided by the state it
//! meets.

use std::fmt;

use super::model::Model;
use super::state::{Proc, State};
use super::{recoverer, resumer, runner, world};

/// One atomic step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// C starts alongside B, as a second recovering replica (only before anything else
    /// happened; without it, C is B restarted).
    SecondReplica,
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
    /// A, or a resume after the gated call, ends the run successfully: `finish`.
    EndRun(Proc),
    /// A, or a resume after the gated call, pauses the run on the gated call: `pause`.
    Pause(Proc),
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
    /// A resume: `load_paused`, and the decisions checked against the turn read.
    Load(Proc),
    /// A resume: `take_paused`.
    Take(Proc),
    /// The gated call runs for a resume that took the run (its effect happens and it returns).
    GatedCallRuns(Proc),
    /// The owner's lease runs out as time passes: an ordinary event, for an owner that no
    /// longer renews it (it crashed or released the run, or, under
    /// [`Variant::RenewOnlyBeforeAction`](super::Variant::RenewOnlyBeforeAction), a
    /// compensating action of its outlasts the lease).
    LeaseRunsOut(Proc),
    /// A fault: the owner, alive and renewing, stalls (or its heartbeat cannot reach the
    /// store) long enough for its lease to expire.
    Stall(Proc),
    /// A fault: a process crashes.
    Crash(Proc),
}

/// Who takes an ordinary step, for the fairness of the liveness check: a process, the
/// passing of time (a lease runs out), or a late compensation of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Actor {
    /// A process's own step.
    Process(Proc),
    /// Time passes: a lease nobody renews runs out.
    Time,
    /// A timed-out compensation of the call takes effect.
    Late(u8),
}

impl Step {
    /// Whether the step is a fault of the environment: a crash or a stall. Everything else
    /// (timeouts and leases running out included) is an ordinary event, which the liveness
    /// check lets happen after the last fault.
    pub fn is_fault(self) -> bool {
        matches!(self, Step::Stall(_) | Step::Crash(_))
    }

    /// Who takes the step, when it is an ordinary one that fairness asks to happen: none for a
    /// fault, and none for C's start (a choice made once, before anything else).
    pub(crate) fn actor(self) -> Option<Actor> {
        let process = match self {
            Step::SecondReplica | Step::Stall(_) | Step::Crash(_) => return None,
            Step::LeaseRunsOut(_) => return Some(Actor::Time),
            Step::LateCompensation(call) => return Some(Actor::Late(call)),
            Step::Begin
            | Step::CallStarts(_)
            | Step::CallTakesEffect(_)
            | Step::CallReturns(_)
            | Step::CallFails(_)
            | Step::Heartbeat => Proc::A,
            Step::EndRun(by)
            | Step::Pause(by)
            | Step::Renew(by, _)
            | Step::CompensationTakesEffect(by, _)
            | Step::CompensationReturns(by, _)
            | Step::CompensationTimesOut { by, .. }
            | Step::Finish(by)
            | Step::Claim(by)
            | Step::Load(by)
            | Step::Take(by)
            | Step::GatedCallRuns(by) => by,
        };
        Some(Actor::Process(process))
    }
}

impl Model {
    /// Every step possible in `state`; none in a terminal state.
    pub fn steps(&self, state: &State) -> Vec<Step> {
        let mut steps = Vec::new();
        runner::steps(self, state, &mut steps);
        for by in Proc::RECOVERERS {
            recoverer::steps(self, state, by, &mut steps);
        }
        for by in Proc::RESUMERS {
            resumer::steps(self, state, by, &mut steps);
        }
        world::steps(self, state, &mut steps);
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
            | Step::EndRun(Proc::A)
            | Step::Pause(Proc::A)
            | Step::Renew(Proc::A, _)
            | Step::CompensationTakesEffect(Proc::A, _)
            | Step::CompensationReturns(Proc::A, _)
            | Step::CompensationTimesOut { by: Proc::A, .. }
            | Step::Finish(Proc::A) => runner::apply(self, &mut next, step),
            Step::Load(_)
            | Step::Take(_)
            | Step::GatedCallRuns(_)
            | Step::EndRun(_)
            | Step::Pause(_) => resumer::apply(self, &mut next, step),
            Step::Renew(..)
            | Step::CompensationTakesEffect(..)
            | Step::CompensationReturns(..)
            | Step::CompensationTimesOut { .. }
            | Step::Finish(_)
            | Step::Claim(_) => recoverer::apply(self, &mut next, step),
            Step::SecondReplica
            | Step::LateCompensation(_)
            | Step::LeaseRunsOut(_)
            | Step::Stall(_)
            | Step::Crash(_) => world::apply(&mut next, step),
        }
        next.bound_spare();
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
            Step::SecondReplica => write!(f, "C starts alongside B"),
            Step::Begin => write!(f, "A begin"),
            Step::CallStarts(c) => write!(f, "A starts {}", Call(c)),
            Step::CallTakesEffect(c) => write!(f, "{} takes effect", Call(c)),
            Step::CallReturns(c) => write!(f, "{0} returns success; A record({0})", Call(c)),
            Step::CallFails(c) => write!(f, "{} fails; A rolls back", Call(c)),
            Step::Heartbeat => write!(f, "A renew (heartbeat)"),
            Step::EndRun(by) => write!(f, "{by:?} finish (the run succeeded)"),
            Step::Pause(by) => write!(f, "{by:?} pause (on the gated call)"),
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
            Step::Load(by) => write!(f, "{by:?} load_paused"),
            Step::Take(by) => write!(f, "{by:?} take_paused"),
            Step::GatedCallRuns(by) => write!(f, "the gated call runs for {by:?}"),
            Step::LeaseRunsOut(by) => write!(f, "{by:?}'s lease runs out"),
            Step::Stall(by) => write!(f, "{by:?} stalls: its lease expires"),
            Step::Crash(by) => write!(f, "{by:?} crashes"),
        }
    }
}
