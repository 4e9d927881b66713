//! A recovering process, B or C: claims the run once its lease expired, rolls back the claimed
//! calls newest first, each after a `renew`, and finishes the run.
//!
//! Each claim opens a recovery pass (a `claim_orphan` loop) that ends when `claim_orphan`
//! finds nothing. A pass skips the runs it lost (`Lost` from the store) or released (a
//! compensation timed out): met again, they end it. With one run, a pass therefore ends with
//! that run, and the recoverer is `Idle` again; a later pass may take the run once more.

use super::model::{Model, Variant};
use super::runner::compensation_steps;
use super::state::{Proc, RecovererAt, State, MAX_CALLS};
use super::steps::Step;
use super::store::{Claim, Outcome, Status};

/// The rule `claim_orphan` follows in `model`.
fn claim_rule(model: &Model) -> Claim {
    match model.variant {
        Variant::ClaimIgnoresLease => Claim::AnyOfOthers,
        Variant::ClaimSkipsOwnRuns => Claim::ExpiredOfOthers,
        _ => Claim::Expired,
    }
}

/// The possible steps of `by`.
pub(crate) fn steps(model: &Model, state: &State, by: Proc, steps: &mut Vec<Step>) {
    match state.recoverer(by).at {
        RecovererAt::Idle => {
            // Tried on a copy: enabled when the store would hand the run over.
            if state
                .store
                .clone()
                .claim_orphan(by, claim_rule(model), false)
                .is_some()
            {
                steps.push(Step::Claim(by));
            }
        }
        RecovererAt::Renewing { call } => steps.push(Step::Renew(by, call)),
        // In the same pass after a loss (only under `ReclaimAfterLoss`): `claim_orphan` is
        // called at once, and either claims the run again or finds nothing.
        RecovererAt::Reclaiming => steps.push(Step::Claim(by)),
        RecovererAt::Compensating { call, effected } => {
            compensation_steps(state, by, call, effected, steps)
        }
        RecovererAt::Finishing => steps.push(Step::Finish(by)),
        RecovererAt::Dormant | RecovererAt::Crashed => {}
    }
}

/// What `step` of a recovering process does to `state`.
pub(crate) fn apply(model: &Model, state: &mut State, step: Step) {
    match step {
        // `claim_orphan`: owns the run, reads what is left to roll back. Finding nothing, the
        // pass ends.
        Step::Claim(by) => {
            let everything = model.variant == Variant::ClaimReadsEverything;
            match state.store.claim_orphan(by, claim_rule(model), everything) {
                Some(claimed) => {
                    state.holds[by.index()] = true;
                    let recoverer = state.recoverer_mut(by);
                    recoverer.claimed = claimed;
                    recoverer.timed_out = false;
                    go_on(model, state, by);
                }
                None => state.recoverer_mut(by).at = RecovererAt::Idle,
            }
        }
        // `renew` before each rollback; `Lost`: the run is someone else's, stop.
        Step::Renew(by, call) => match state.store.renew(by) {
            Ok(()) => {
                state.holds[by.index()] = true;
                state.recoverer_mut(by).at = RecovererAt::Compensating {
                    call,
                    effected: false,
                };
            }
            Err(_) => stop(model, state, by),
        },
        Step::CompensationTakesEffect(by, call) => {
            state.world.compensate(usize::from(call));
            state.recoverer_mut(by).at = RecovererAt::Compensating {
                call,
                effected: true,
            };
        }
        // `compensated(Done)`.
        Step::CompensationReturns(by, call) => {
            match state
                .store
                .compensated(by, call, Outcome::Done, model.max_attempts)
            {
                Ok(_) => done_with(model, state, by, call),
                Err(_) => stop(model, state, by),
            }
        }
        // `compensated(TimedOut)`: one more attempt counted; failed for good at the last.
        Step::CompensationTimesOut { by, call, late } => {
            let effected = matches!(
                state.recoverer(by).at,
                RecovererAt::Compensating { effected: true, .. }
            );
            let index = usize::from(call);
            state.world.disturbed = true;
            state.world.interrupt(index);
            if late && !effected {
                state.world.late[index] += 1;
            }
            match state
                .store
                .compensated(by, call, Outcome::TimedOut, model.max_attempts)
            {
                Ok(status) => {
                    if let Status::TimedOut(_) = status {
                        state.recoverer_mut(by).timed_out = true;
                    }
                    done_with(model, state, by, call);
                }
                Err(_) => stop(model, state, by),
            }
        }
        // `finish`: the run is recovered.
        Step::Finish(by) => {
            let forgets = model.variant == Variant::FinishForgetsOwner;
            match state.store.finish(by, forgets) {
                Ok(()) => {
                    state.holds[by.index()] = false;
                    state.recoverer_mut(by).at = RecovererAt::Idle;
                }
                Err(_) => stop(model, state, by),
            }
        }
        _ => {}
    }
}

fn done_with(model: &Model, state: &mut State, by: Proc, call: u8) {
    state.recoverer_mut(by).claimed[usize::from(call)] = false;
    go_on(model, state, by);
}

/// On to the newest claimed call left; with none: `finish`, unless a compensation timed out
/// (then the run is released for a later pass: its lease is left to run out, and this pass,
/// which skips it, ends).
fn go_on(model: &Model, state: &mut State, by: Proc) {
    let recoverer = state.recoverer_mut(by);
    let newest = (0..MAX_CALLS).rev().find(|&call| recoverer.claimed[call]);
    recoverer.at = match newest {
        Some(call) => RecovererAt::Renewing { call: call as u8 },
        None if recoverer.timed_out && model.variant != Variant::RecoveryFinishesAfterTimeout => {
            RecovererAt::Idle
        }
        None => RecovererAt::Finishing,
    };
}

/// The store said `Lost`: stop recovering this run. The pass skips it from now on, so it ends
/// (under `ReclaimAfterLoss`, it calls `claim_orphan` again, which may take the run back).
fn stop(model: &Model, state: &mut State, by: Proc) {
    state.holds[by.index()] = false;
    let recoverer = state.recoverer_mut(by);
    recoverer.claimed = [false; MAX_CALLS];
    recoverer.at = if model.variant == Variant::ReclaimAfterLoss {
        RecovererAt::Reclaiming
    } else {
        RecovererAt::Idle
    };
}

/// Whether `by` is compensating a call, and which.
pub(crate) fn compensating(state: &State, by: Proc) -> Option<u8> {
    match state.recoverer(by).at {
        RecovererAt::Compensating { call, .. } => Some(call),
        _ => None,
    }
}
