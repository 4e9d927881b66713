//! The properties checked: some in every state, the rest in terminal states (no step left:
//! every process crashed or stopped, every lease expired or the run finished, every late
//! compensation happened, and a live recoverer ran to quiescence).

use std::fmt;

use super::state::{Proc, State, MAX_CALLS};
use super::store::Phase;

/// A property of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property {
    /// S1, every state: no compensation takes effect for a call that did not succeed, or
    /// whose effect never happened.
    NoSpuriousCompensation,
    /// S2, every state: a call's compensation takes effect more than once only after an
    /// attempt at it was interrupted (its owner crashed or its lease expired during it, or it
    /// timed out): at most once more per interrupted attempt.
    RepeatOnlyAfterInterruption,
    /// Every state: whoever believes it holds the lease (its last `begin`, `renew` or
    /// `claim_orphan` succeeded, not expired since) is the store's owner, lease live. So at
    /// most one process believes it owns the run.
    OneOwner,
    /// L, terminal: every succeeded call of a run that did not finish successfully is rolled
    /// back (compensated at least once, or failed for good after every attempt); a run that
    /// finished successfully has no compensation at all.
    NothingLost,
    /// Terminal: the rolled-back calls are none, or every succeeded call.
    AllOrNothing,
    /// Terminal, with no crash, expiry or timeout on the way: each rolled-back call is
    /// compensated exactly once.
    ExactlyOnceUndisturbed,
    /// Terminal: a run that began is finished; none is left behind unowned.
    Settled,
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Property::NoSpuriousCompensation => "S1 no spurious compensation",
            Property::RepeatOnlyAfterInterruption => "S2 repeats only after an interruption",
            Property::OneOwner => "one owner at a time",
            Property::NothingLost => "L nothing lost",
            Property::AllOrNothing => "all or nothing",
            Property::ExactlyOnceUndisturbed => "exactly once when undisturbed",
            Property::Settled => "every run settled",
        };
        f.write_str(name)
    }
}

/// The first property `state` violates among those of every state.
pub(crate) fn violated_always(state: &State) -> Option<Property> {
    let world = &state.world;
    let spurious = (0..MAX_CALLS).any(|call| {
        world.compensations[call] > 0
            && !(world.effect[call] && state.runner.known[call] != super::Known::Unknown)
    });
    if spurious {
        return Some(Property::NoSpuriousCompensation);
    }
    let unexcused_repeat = (0..MAX_CALLS)
        .any(|call| world.compensations[call] > world.interrupted[call].saturating_add(1));
    if unexcused_repeat {
        return Some(Property::RepeatOnlyAfterInterruption);
    }
    let two_owners = [Proc::A, Proc::B, Proc::C].into_iter().any(|by| {
        state.holds[by.index()]
            && state.store.phase
                != Phase::Running {
                    owner: by,
                    live: true,
                }
    });
    if two_owners {
        return Some(Property::OneOwner);
    }
    None
}

/// The first property the terminal `state` violates among those of terminal states.
pub(crate) fn violated_at_end(state: &State) -> Option<Property> {
    let world = &state.world;
    let calls = 0..MAX_CALLS;
    let any_rolled_back = calls.clone().any(|call| state.rolled_back(call));
    let lost = if world.finished_ok {
        any_rolled_back
    } else {
        calls
            .clone()
            .any(|call| state.succeeded(call) && !state.rolled_back(call))
    };
    if lost {
        return Some(Property::NothingLost);
    }
    let partial = any_rolled_back
        && calls
            .clone()
            .any(|call| state.succeeded(call) && !state.rolled_back(call));
    if partial {
        return Some(Property::AllOrNothing);
    }
    if !world.disturbed && calls.clone().any(|call| world.compensations[call] > 1) {
        return Some(Property::ExactlyOnceUndisturbed);
    }
    if matches!(state.store.phase, Phase::Running { .. }) {
        return Some(Property::Settled);
    }
    None
}
