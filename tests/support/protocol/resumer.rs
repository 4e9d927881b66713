//! The resumes, R1 and R2: each holds the decisions a person made for the run's first pause
//! (allowing the gated call), and sends them once. R2 stands for the same decisions sent
//! again, whether racing R1 or retried after R1 returned.
//!
//! A resume reads the paused turn and checks the decisions against it (`load_paused`), takes
//! the run (`take_paused`), runs the gated call, and goes on with the run: the model asks for
//! the same call again, so the run pauses once more on a call with the same key and
//! fingerprint (a new pause, up to the model's bound), or the run ends. The decisions bind to
//! the pause they were made for: `take_paused` checks, in the same step, that the run still
//! waits there.

use super::model::{Model, Variant};
use super::state::{Proc, ResumerAt, State};
use super::steps::Step;

/// The pause the decisions were made for.
const DECIDED: u8 = 1;

/// The possible steps of the resume `by`.
pub(crate) fn steps(model: &Model, state: &State, by: Proc, steps: &mut Vec<Step>) {
    match state.resumer(by) {
        // The decisions exist once the run paused for the first time.
        ResumerAt::Waiting if state.world.pauses >= DECIDED => steps.push(Step::Load(by)),
        ResumerAt::Loaded => steps.push(Step::Take(by)),
        ResumerAt::Calling => steps.push(Step::GatedCallRuns(by)),
        ResumerAt::Continuing => {
            if state.world.pauses < model.pauses {
                steps.push(Step::Pause(by));
            }
            steps.push(Step::EndRun(by));
        }
        ResumerAt::Waiting | ResumerAt::Done | ResumerAt::Crashed => {}
    }
}

/// What `step` of a resume does to `state`.
pub(crate) fn apply(model: &Model, state: &mut State, step: Step) {
    // The pause `take_paused` asks for: the decided one, or (the mutation) none in particular.
    let wanted = (model.variant != Variant::TakeAnyPause).then_some(DECIDED);
    match step {
        // The decisions fit the turn read when it waits at their pause; under `TakeAnyPause`
        // the check knows no pause, and the calls of every pause look alike (same key, same
        // fingerprint), so any paused turn fits. Nothing to fit: the resume is refused.
        Step::Load(by) => {
            let fits = match (state.store.load_paused(), wanted) {
                (Some(at), Some(wanted)) => at == wanted,
                (at, _) => at.is_some(),
            };
            *state.resumer_mut(by) = if fits {
                ResumerAt::Loaded
            } else {
                ResumerAt::Done
            };
        }
        // `take_paused`: the run is this resume's, lease live; refused ("already decided"),
        // nothing runs.
        Step::Take(by) => match state.store.take_paused(by, wanted) {
            Ok(()) => {
                state.holds[by.index()] = true;
                *state.resumer_mut(by) = ResumerAt::Calling;
            }
            Err(_) => *state.resumer_mut(by) = ResumerAt::Done,
        },
        Step::GatedCallRuns(by) => {
            state.world.gated_runs += 1;
            *state.resumer_mut(by) = ResumerAt::Continuing;
        }
        // `pause` again, on the same call: the next pause of the run. `Lost` (recovery took
        // the run while this resume stalled): the resume stops; the new owner ends the run.
        Step::Pause(by) => {
            let next = state.world.pauses + 1;
            if state.store.pause(by, next).is_ok() {
                state.world.pauses = next;
            }
            end(state, by);
        }
        // `finish`: the run succeeded. `Lost`: as for `pause`.
        Step::EndRun(by) => {
            let forgets = model.variant == Variant::FinishForgetsOwner;
            if state.store.finish(by, forgets).is_ok() {
                state.world.finished_ok = true;
            }
            end(state, by);
        }
        _ => {}
    }
}

/// The resume returns: it holds nothing any more.
fn end(state: &mut State, by: Proc) {
    state.holds[by.index()] = false;
    *state.resumer_mut(by) = ResumerAt::Done;
}
