//! The runner, A: begins the run, makes its calls one after another, records each success,
//! renews its lease, and rolls back, newest first, when a call fails or the run is lost. Between
//! calls, it may instead pause the run on the gated call, and leave it to a resume.

use super::model::{Model, Variant};
use super::state::{Known, Proc, RunnerAt, State, LATE_CAP};
use super::steps::Step;
use super::store::{Outcome, Phase, Status};

/// A's possible steps.
pub(crate) fn steps(model: &Model, state: &State, steps: &mut Vec<Step>) {
    let runner = &state.runner;
    match runner.at {
        RunnerAt::Start => steps.push(Step::Begin),
        RunnerAt::Idle { next } => {
            if next < model.calls {
                steps.push(Step::CallStarts(next));
            }
            if next > 0 {
                steps.push(Step::EndRun(Proc::A));
            }
            if model.pauses > 0 && state.live_recoverers() < 2 {
                steps.push(Step::Pause(Proc::A));
            }
        }
        RunnerAt::Calling { call, effected } => {
            if effected {
                steps.push(Step::CallReturns(call));
            } else {
                steps.push(Step::CallTakesEffect(call));
                steps.push(Step::CallFails(call));
            }
        }
        RunnerAt::Renewing { call } => steps.push(Step::Renew(Proc::A, call)),
        RunnerAt::Compensating { call, effected, .. } => {
            compensation_steps(state, Proc::A, call, effected, steps)
        }
        RunnerAt::Finishing => steps.push(Step::Finish(Proc::A)),
        RunnerAt::Ended | RunnerAt::Released | RunnerAt::Paused | RunnerAt::Crashed => {}
    }
    if heartbeat_due(state) {
        steps.push(Step::Heartbeat);
    }
}

/// A compensating action in flight: it takes effect, returns, or times out (and then, when it
/// had not taken effect, it may still take effect later, or never: later only while fewer than
/// [`LATE_CAP`] of the call's timed-out compensations are pending, the bound that keeps a run
/// handed back and forth from piling them up without end).
pub(crate) fn compensation_steps(
    state: &State,
    by: Proc,
    call: u8,
    effected: bool,
    steps: &mut Vec<Step>,
) {
    if effected {
        steps.push(Step::CompensationReturns(by, call));
        steps.push(Step::CompensationTimesOut {
            by,
            call,
            late: false,
        });
    } else {
        steps.push(Step::CompensationTakesEffect(by, call));
        steps.push(Step::CompensationTimesOut {
            by,
            call,
            late: false,
        });
        if state.world.late[usize::from(call)] < LATE_CAP {
            steps.push(Step::CompensationTimesOut {
                by,
                call,
                late: true,
            });
        }
    }
}

/// The heartbeat renews while A runs calls and has not been told it lost the run. A renewal
/// that changes nothing (the lease is live and A's) is left out: it leads back to the same
/// state.
fn heartbeat_due(state: &State) -> bool {
    let running = matches!(
        state.runner.at,
        RunnerAt::Idle { .. } | RunnerAt::Calling { .. }
    );
    let renewal_changes_something = state.store.phase
        != Phase::Running {
            owner: Proc::A,
            live: true,
        };
    running && !state.runner.lost && renewal_changes_something
}

/// What A's `step` does to `state`.
pub(crate) fn apply(model: &Model, state: &mut State, step: Step) {
    let before_fix = model.variant == Variant::BeforeFix;
    match step {
        // `begin`: the run starts, owned by A.
        Step::Begin => {
            state.store.begin(Proc::A);
            state.holds[Proc::A.index()] = true;
            state.runner.at = RunnerAt::Idle { next: 0 };
        }
        Step::CallStarts(call) => {
            state.runner.at = RunnerAt::Calling {
                call,
                effected: false,
            }
        }
        Step::CallTakesEffect(call) => {
            state.world.effect[usize::from(call)] = true;
            state.runner.at = RunnerAt::Calling {
                call,
                effected: true,
            };
        }
        // `record`: write-ahead of the success. Refused with `Lost`, the call is A's alone.
        Step::CallReturns(call) => match state.store.record(Proc::A, call) {
            Ok(()) => {
                state.runner.known[usize::from(call)] = Known::Recorded;
                state.runner.at = if state.runner.lost {
                    roll_back_below(model, state, model.calls)
                } else {
                    RunnerAt::Idle { next: call + 1 }
                };
            }
            Err(_) if before_fix => stop(state),
            Err(_) => {
                state.runner.known[usize::from(call)] = Known::LocalOnly;
                lose(state);
                state.runner.at = roll_back_below(model, state, model.calls);
            }
        },
        Step::CallFails(call) => {
            if model.variant == Variant::RollbackIncludesFailedCall {
                state.runner.known[usize::from(call)] = Known::LocalOnly;
            }
            state.runner.at = roll_back_below(model, state, model.calls);
        }
        // `renew` by the heartbeat. `Lost`: start nothing new, let the call in flight finish
        // (in the earlier protocol: drop it where it stands).
        Step::Heartbeat => match state.store.renew(Proc::A) {
            Ok(()) => state.holds[Proc::A.index()] = true,
            Err(_) if before_fix => stop(state),
            Err(_) => {
                lose(state);
                if let RunnerAt::Idle { .. } = state.runner.at {
                    state.runner.at = roll_back_below(model, state, model.calls);
                }
            }
        },
        // `finish` on the success path; `Lost`: roll back what only A knows.
        Step::EndRun(_) => {
            let forgets = model.variant == Variant::FinishForgetsOwner;
            match state.store.finish(Proc::A, forgets) {
                Ok(()) => {
                    state.world.finished_ok = true;
                    state.holds[Proc::A.index()] = false;
                    state.runner.at = RunnerAt::Ended;
                }
                Err(_) if before_fix => stop(state),
                Err(_) => {
                    lose(state);
                    state.runner.at = roll_back_below(model, state, model.calls);
                }
            }
        }
        // `pause` on the gated call: the run waits at its first pause, and A returns the paused
        // turn. `Lost`: as for `finish`.
        Step::Pause(_) => match state.store.pause(Proc::A, 1) {
            Ok(()) => {
                state.world.pauses = 1;
                state.holds[Proc::A.index()] = false;
                state.runner.at = RunnerAt::Paused;
            }
            Err(_) if before_fix => stop(state),
            Err(_) => {
                lose(state);
                state.runner.at = roll_back_below(model, state, model.calls);
            }
        },
        // `renew` before compensating a recorded call. `Lost`: the new owner has it; skip it.
        Step::Renew(_, call) => match state.store.renew(Proc::A) {
            Ok(()) => {
                state.holds[Proc::A.index()] = true;
                state.runner.at = RunnerAt::Compensating {
                    call,
                    effected: false,
                    attempt: 0,
                };
            }
            Err(_) if before_fix => stop(state),
            Err(_) => {
                lose(state);
                state.runner.at = roll_back_below(model, state, call);
            }
        },
        Step::CompensationTakesEffect(_, call) => {
            state.world.compensate(usize::from(call));
            if let RunnerAt::Compensating { effected, .. } = &mut state.runner.at {
                *effected = true;
            }
        }
        // `compensated(Done)` for a recorded call; nothing to write for a local-only one.
        Step::CompensationReturns(_, call) => {
            if state.runner.known[usize::from(call)] == Known::Recorded {
                let written =
                    state
                        .store
                        .compensated(Proc::A, call, Outcome::Done, model.max_attempts);
                if written.is_err() {
                    if before_fix {
                        return stop(state);
                    }
                    lose(state);
                }
            }
            state.runner.at = roll_back_below(model, state, call);
        }
        Step::CompensationTimesOut { call, late, .. } => time_out(model, state, call, late),
        // `finish` after the rollback.
        Step::Finish(_) => {
            if state.store.finish(Proc::A, false).is_ok() {
                state.holds[Proc::A.index()] = false;
            }
            state.runner.at = RunnerAt::Ended;
        }
        _ => {}
    }
}

/// A's compensation of `call` timed out: it counts as interrupted, and may still take effect.
/// A recorded call gets `compensated(TimedOut)` and the run is left to recovery; a local-only
/// call, which nobody else can retry, is retried here up to the attempts allowed.
fn time_out(model: &Model, state: &mut State, call: u8, late: bool) {
    let RunnerAt::Compensating {
        effected, attempt, ..
    } = state.runner.at
    else {
        return;
    };
    let index = usize::from(call);
    state.world.disturbed = true;
    state.world.interrupt(index);
    if late && !effected {
        state.world.late[index] += 1;
    }
    if state.runner.known[index] == Known::LocalOnly {
        let tried = attempt + 1;
        if tried < model.max_attempts && model.variant != Variant::LocalOnlyNotRetried {
            state.runner.at = RunnerAt::Compensating {
                call,
                effected: false,
                attempt: tried,
            };
            return;
        }
        if tried >= model.max_attempts {
            state.world.given_up[index] = true;
        }
    } else {
        match state
            .store
            .compensated(Proc::A, call, Outcome::TimedOut, model.max_attempts)
        {
            Ok(Status::TimedOut(_)) => state.runner.timed_out = true,
            Ok(_) => {}
            Err(_) if model.variant == Variant::BeforeFix => return stop(state),
            Err(_) => lose(state),
        }
    }
    state.runner.at = roll_back_below(model, state, call);
}

/// The store said `Lost`: A believes it owns nothing any more.
fn lose(state: &mut State) {
    state.runner.lost = true;
    state.holds[Proc::A.index()] = false;
}

/// In the earlier protocol, `Lost` ends A's part: it leaves everything to the new owner.
fn stop(state: &mut State) {
    lose(state);
    state.runner.at = RunnerAt::Ended;
}

/// The rollback goes on with the newest call below `below` that A must compensate: a
/// local-only one always, a recorded one unless A lost the run. With none left: `finish`,
/// unless A lost the run (the new owner finishes) or a compensation timed out (recovery
/// retries it: A releases the run by no longer renewing its lease).
fn roll_back_below(model: &Model, state: &State, below: u8) -> RunnerAt {
    let runner = &state.runner;
    let next =
        (0..below.min(model.calls))
            .rev()
            .find(|&call| match runner.known[usize::from(call)] {
                Known::LocalOnly => true,
                Known::Recorded => !runner.lost,
                Known::Unknown => false,
            });
    match next {
        Some(call) if runner.known[usize::from(call)] == Known::LocalOnly => {
            RunnerAt::Compensating {
                call,
                effected: false,
                attempt: 0,
            }
        }
        Some(call) => RunnerAt::Renewing { call },
        None if runner.lost => RunnerAt::Ended,
        None if runner.timed_out => RunnerAt::Released,
        None => RunnerAt::Finishing,
    }
}
