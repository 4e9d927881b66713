//! The properties checked: some in every state, some in terminal states (no step left:
//! every process crashed or stopped, every lease expired or the run finished or paused, every
//! late compensation happened, and a live recoverer ran to quiescence), and two of the graph of
//! reachable states, checked once it is complete ([`liveness`](super::liveness)).

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
    /// Every state: whoever believes it holds the lease (its last `begin`, `renew`,
    /// `claim_orphan` or `take_paused` succeeded, not expired since) is the store's owner,
    /// lease live. So at most one process believes it owns the run.
    OneOwner,
    /// Every state: the gated call runs at most once per approval. The model has one: the
    /// decisions for the first pause, sent by R1 and again by R2; a later pause waits on the
    /// same call but was decided by nobody.
    OneRunPerApproval,
    /// L, terminal: every succeeded call of a run that did not finish successfully is rolled
    /// back (compensated at least once, or failed for good after every attempt); a run that
    /// finished successfully has no compensation at all. A run left paused waits for a person:
    /// it is not over, and nothing of it is due yet.
    NothingLost,
    /// Terminal: the rolled-back calls are none, or every succeeded call.
    AllOrNothing,
    /// Terminal, with no crash, expiry or timeout on the way: each rolled-back call is
    /// compensated exactly once.
    ExactlyOnceUndisturbed,
    /// Terminal: a run that began is finished (or paused, waiting for a person); none is left
    /// behind owned.
    Settled,
    /// Liveness: from every reachable state, with no further fault (no crash, no stall), the
    /// run reaches its end: no fair cycle of ordinary steps, and no state other than an end
    /// (run finished, paused, or never begun) where only a fault could happen next.
    Terminates,
    /// Liveness, faults allowed: every recovery pass ends. No reachable fair cycle, however
    /// many crashes and stalls it takes, along which one recoverer stays in one pass and claims
    /// the run again and again.
    PassesEnd,
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Property::NoSpuriousCompensation => "S1 no spurious compensation",
            Property::RepeatOnlyAfterInterruption => "S2 repeats only after an interruption",
            Property::OneOwner => "one owner at a time",
            Property::OneRunPerApproval => "one run of a gated call per approval",
            Property::NothingLost => "L nothing lost",
            Property::AllOrNothing => "all or nothing",
            Property::ExactlyOnceUndisturbed => "exactly once when undisturbed",
            Property::Settled => "every run settled",
            Property::Terminates => "every run ends without further faults",
            Property::PassesEnd => "every recovery pass ends",
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
    if world.spare.iter().any(|&spare| spare < 0) {
        return Some(Property::RepeatOnlyAfterInterruption);
    }
    let two_owners = Proc::ALL.into_iter().any(|by| {
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
    if world.gated_runs > 1 {
        return Some(Property::OneRunPerApproval);
    }
    None
}

/// The first property the terminal `state` violates among those of terminal states.
pub(crate) fn violated_at_end(state: &State) -> Option<Property> {
    let world = &state.world;
    let calls = 0..MAX_CALLS;
    let paused = matches!(state.store.phase, Phase::Paused { .. });
    let any_rolled_back = calls.clone().any(|call| state.rolled_back(call));
    let lost = if world.finished_ok {
        any_rolled_back
    } else {
        !paused
            && calls
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
    if !settled(state) {
        return Some(Property::Settled);
    }
    None
}

/// Whether the run is at an end: finished, paused (waiting for a person), or never begun.
pub(crate) fn settled(state: &State) -> bool {
    !matches!(state.store.phase, Phase::Running { .. })
}
