//! The environment: leases run out or expire, processes crash, timed-out compensations take
//! effect after all, and a second recovering replica may be running, at any point.
//!
//! Faults and ordinary events are told apart, for the liveness check: a crash is a fault, and
//! so is the expiry of a lease its owner keeps renewing (the owner stalled). A lease whose
//! owner no longer renews it (crashed, released the run, or, under
//! [`Variant::RenewOnlyBeforeAction`], is in the middle of a compensating action) runs out as
//! time passes: an ordinary event.

use super::model::{Model, Variant};
use super::recoverer::compensating;
use super::state::{Known, Proc, RecovererAt, ResumerAt, RunnerAt, State, MAX_CALLS};
use super::steps::Step;
use super::store::Phase;

/// The environment's possible steps.
pub(crate) fn steps(model: &Model, state: &State, steps: &mut Vec<Step>) {
    if model.replicas > 1 && *state == State::initial() {
        steps.push(Step::SecondReplica);
    }
    if let Phase::Running { owner, live: true } = state.store.phase {
        steps.push(if keeps_lease(model, state, owner) {
            Step::Stall(owner)
        } else {
            Step::LeaseRunsOut(owner)
        });
    }
    for call in 0..MAX_CALLS {
        if state.world.late[call] > 0 {
            steps.push(Step::LateCompensation(call as u8));
        }
    }
    if !matches!(
        state.runner.at,
        RunnerAt::Ended | RunnerAt::Released | RunnerAt::Paused | RunnerAt::Crashed
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
    // A resume that crashes before it took the run is one never sent; after, it leaves the
    // run owned by a dead process, for recovery.
    for by in Proc::RESUMERS {
        if matches!(
            state.resumer(by),
            ResumerAt::Calling | ResumerAt::Continuing
        ) {
            steps.push(Step::Crash(by));
        }
    }
}

/// Whether `owner`, alive, keeps its lease renewed, so that only a stall lets it expire: the
/// heartbeat renews it while A runs calls, while a resume runs the gated call, and, in the
/// protocol, during every compensating action too.
fn keeps_lease(model: &Model, state: &State, owner: Proc) -> bool {
    let renewed_in_action = model.variant != Variant::RenewOnlyBeforeAction;
    match owner {
        Proc::A => match state.runner.at {
            RunnerAt::Compensating { .. } => renewed_in_action,
            RunnerAt::Released | RunnerAt::Ended | RunnerAt::Paused | RunnerAt::Crashed => false,
            _ => true,
        },
        Proc::B | Proc::C => match state.recoverer(owner).at {
            RecovererAt::Compensating { .. } => renewed_in_action,
            RecovererAt::Renewing { .. } | RecovererAt::Finishing | RecovererAt::Reclaiming => true,
            RecovererAt::Dormant | RecovererAt::Idle | RecovererAt::Crashed => false,
        },
        Proc::R1 | Proc::R2 => matches!(
            state.resumer(owner),
            ResumerAt::Calling | ResumerAt::Continuing
        ),
    }
}

/// What the environment's `step` does to `state`.
pub(crate) fn apply(state: &mut State, step: Step) {
    match step {
        Step::SecondReplica => state.recoverer_mut(Proc::C).at = RecovererAt::Idle,
        // The owner's lease runs out; a store-visible compensation it had in flight is
        // interrupted (another owner may now repeat it).
        Step::LeaseRunsOut(owner) | Step::Stall(owner) => {
            if let Phase::Running { owner, .. } = state.store.phase {
                state.store.phase = Phase::Running { owner, live: false };
            }
            state.holds[owner.index()] = false;
            state.world.disturbed = true;
            if let Some(call) = compensating_recorded(state, owner) {
                state.world.interrupt(usize::from(call));
            }
        }
        Step::LateCompensation(call) => {
            let call = usize::from(call);
            state.world.late[call] -= 1;
            state.world.compensate(call);
        }
        // A crash stops the process where it stands: a call or compensation in flight that had
        // not taken effect never will; one that had is interrupted.
        Step::Crash(by) => {
            state.world.disturbed = true;
            state.holds[by.index()] = false;
            if let Some(call) = compensating_recorded(state, by) {
                state.world.interrupt(usize::from(call));
            }
            match by {
                Proc::A => state.runner.at = RunnerAt::Crashed,
                Proc::B | Proc::C => {
                    state.recoverer_mut(by).at = RecovererAt::Crashed;
                    // B restarts as a fresh owner, unless C already runs alongside it.
                    let c = state.recoverer_mut(Proc::C);
                    if by == Proc::B && c.at == RecovererAt::Dormant {
                        c.at = RecovererAt::Idle;
                    }
                }
                Proc::R1 | Proc::R2 => *state.resumer_mut(by) = ResumerAt::Crashed,
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
        Proc::R1 | Proc::R2 => None,
    }
}
