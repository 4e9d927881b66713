//! The environment: leases expire, processes crash, and timed-out compensations take effect
//! after all, at any point.

use super::recoverer::compensating;
use super::state::{Known, Proc, RecovererAt, RunnerAt, State, MAX_CALLS};
use super::steps::Step;
use super::store::Phase;

/// The environment's possible steps.
pub(crate) fn steps(state: &State, steps: &mut Vec<Step>) {
    if let Phase::Running { owner, live: true } = state.store.phase {
        steps.push(Step::Expire(owner));
    }
    for call in 0..MAX_CALLS {
        if state.world.late[call] > 0 {
            steps.push(Step::LateCompensation(call as u8));
        }
    }
    if !matches!(
        state.runner.at,
        RunnerAt::Ended | RunnerAt::Released | RunnerAt::Crashed
    ) {
        steps.push(Step::Crash(Proc::A));
    }
    // An idle B that crashes comes back as C, just as idle: only mid-recovery is a crash of B
    // a different story (and leaving it out idle keeps B alive in most end states).
    if !matches!(
        state.recoverer(Proc::B).at,
        RecovererAt::Idle | RecovererAt::Crashed
    ) {
        steps.push(Step::Crash(Proc::B));
    }
}

/// What the environment's `step` does to `state`.
pub(crate) fn apply(state: &mut State, step: Step) {
    match step {
        // The owner's lease runs out; a store-visible compensation it had in flight is
        // interrupted (another owner may now repeat it).
        Step::Expire(owner) => {
            if let Phase::Running { owner, .. } = state.store.phase {
                state.store.phase = Phase::Running { owner, live: false };
            }
            state.holds[owner.index()] = false;
            state.world.disturbed = true;
            if let Some(call) = compensating_recorded(state, owner) {
                state.world.interrupted[usize::from(call)] += 1;
            }
        }
        Step::LateCompensation(call) => {
            let call = usize::from(call);
            state.world.late[call] -= 1;
            state.world.compensations[call] += 1;
        }
        // A crash stops the process where it stands: a call or compensation in flight that had
        // not taken effect never will; one that had is interrupted.
        Step::Crash(by) => {
            state.world.disturbed = true;
            state.holds[by.index()] = false;
            if let Some(call) = compensating_recorded(state, by) {
                state.world.interrupted[usize::from(call)] += 1;
            }
            match by {
                Proc::A => state.runner.at = RunnerAt::Crashed,
                Proc::B | Proc::C => {
                    state.recoverer_mut(by).at = RecovererAt::Crashed;
                    // B restarts as a fresh owner.
                    if by == Proc::B {
                        state.recoverer_mut(Proc::C).at = RecovererAt::Idle;
                    }
                }
            }
        }
        _ => {}
    }
}

/// The call whose compensation `by` has in flight, when the store knows that call.
fn compensating_recorded(state: &State, by: Proc) -> Option<u8> {
    match by {
        Proc::A => match state.runner.at {
            RunnerAt::Compensating { call, .. }
                if state.runner.known[usize::from(call)] == Known::Recorded =>
            {
                Some(call)
            }
            _ => None,
        },
        Proc::B | Proc::C => compensating(state, by),
    }
}
