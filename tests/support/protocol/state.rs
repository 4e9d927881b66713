//! The state of the model: the store's row, what each process knows and is doing, who
//! believes it holds the lease, and what happened in the world.

use super::store::Store;

/// The most calls a model can have (the arrays of a state are this long).
pub const MAX_CALLS: usize = 3;

/// A process that may own the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Proc {
    /// The runner: begins the run, makes its calls, rolls back on failure.
    A,
    /// The recovering process: a `claim_orphan` loop.
    B,
    /// B restarted: a fresh recovering owner, started once B crashed; it never crashes.
    C,
}

impl Proc {
    /// The recovering processes.
    pub(crate) const RECOVERERS: [Proc; 2] = [Proc::B, Proc::C];

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// What the runner knows of one of its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Known {
    /// Not (yet) returned successfully.
    Unknown,
    /// Returned successfully and recorded: the store knows it.
    Recorded,
    /// Returned successfully, but `record` failed with `Lost`: only the runner knows it, so only
    /// the runner can roll it back.
    LocalOnly,
}

/// Where the runner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunnerAt {
    /// Before `begin`.
    Start,
    /// Between calls; `next` is the next call's index.
    Idle {
        /// The next call's index.
        next: u8,
    },
    /// A call is in flight; `effected` once its effect happened in the world.
    Calling {
        /// The call.
        call: u8,
        /// Whether its effect happened.
        effected: bool,
    },
    /// Rolling back: about to check ownership before compensating a recorded call.
    Renewing {
        /// The call.
        call: u8,
    },
    /// Rolling back: a compensating action is in flight.
    Compensating {
        /// The call it undoes.
        call: u8,
        /// Whether its effect happened.
        effected: bool,
        /// Attempts that timed out before this one (local-only calls are retried in place).
        attempt: u8,
    },
    /// The rollback is over: about to `finish`.
    Finishing,
    /// Done: nothing more to do.
    Ended,
    /// Left the run to recovery after a timed-out compensation: stopped renewing the lease.
    Released,
    /// Crashed: does nothing more.
    Crashed,
}

/// The runner, A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Runner {
    /// Where it is.
    pub at: RunnerAt,
    /// What it knows of each call.
    pub known: [Known; MAX_CALLS],
    /// Whether the store said `Lost`: it starts no new call and rolls back only local-only calls.
    pub lost: bool,
    /// Whether a compensation of a recorded call timed out: it must not finish.
    pub timed_out: bool,
}

/// Where a recovering process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecovererAt {
    /// Not started (C, before B crashed).
    Dormant,
    /// Waiting for an orphan to claim.
    Idle,
    /// About to renew before compensating a claimed call.
    Renewing {
        /// The call.
        call: u8,
    },
    /// A compensating action is in flight.
    Compensating {
        /// The call it undoes.
        call: u8,
        /// Whether its effect happened.
        effected: bool,
    },
    /// Every claimed call handled: about to `finish`.
    Finishing,
    /// Crashed: does nothing more.
    Crashed,
}

/// A recovering process, B or C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Recoverer {
    /// Where it is.
    pub at: RecovererAt,
    /// The claimed calls still to roll back, newest first.
    pub claimed: [bool; MAX_CALLS],
    /// Whether one of this claim's compensations timed out (the run is then left to the next
    /// recovery rather than finished).
    pub timed_out: bool,
}

/// Why a call that took effect is unknown to everyone: the documented gaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// The runner crashed between the call's effect and its `record`.
    BeforeRecord,
    /// The call's `record` failed with `Lost`, and the runner, the only one to know it, crashed
    /// before compensating it.
    LocalOnlyCrash,
}

/// What happened in the world, and the bookkeeping the properties need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct World {
    /// Whether each call's effect happened.
    pub effect: [bool; MAX_CALLS],
    /// How many times each call's compensation took effect.
    pub compensations: [u8; MAX_CALLS],
    /// How many attempts at each call's compensation were interrupted: their owner crashed or
    /// its lease expired during them, or they timed out. Each may let one repeat happen.
    pub interrupted: [u8; MAX_CALLS],
    /// Timed-out compensations of each call that will still take effect.
    pub late: [u8; MAX_CALLS],
    /// Local-only calls whose every compensation attempt timed out: reported failed for good.
    pub given_up: [bool; MAX_CALLS],
    /// Whether the runner's `finish` on the success path succeeded: it reported success.
    pub finished_ok: bool,
    /// Whether a crash, an expiry or a timeout happened.
    pub disturbed: bool,
}

/// One state of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    /// The run's row in the store.
    pub store: Store,
    /// The runner.
    pub runner: Runner,
    /// The recovering processes, B then C.
    pub recoverers: [Recoverer; 2],
    /// Per process (A, B, C): whether it believes it holds the lease (its last `begin`, `renew`
    /// or `claim_orphan` succeeded, and it has neither expired, finished nor crashed since).
    pub holds: [bool; 3],
    /// The world.
    pub world: World,
}

impl State {
    /// Before anything happened.
    pub fn initial() -> Self {
        let recoverer = |at| Recoverer {
            at,
            claimed: [false; MAX_CALLS],
            timed_out: false,
        };
        Self {
            store: Store::new(),
            runner: Runner {
                at: RunnerAt::Start,
                known: [Known::Unknown; MAX_CALLS],
                lost: false,
                timed_out: false,
            },
            recoverers: [
                recoverer(RecovererAt::Idle),
                recoverer(RecovererAt::Dormant),
            ],
            holds: [false; 3],
            world: World {
                effect: [false; MAX_CALLS],
                compensations: [0; MAX_CALLS],
                interrupted: [0; MAX_CALLS],
                late: [0; MAX_CALLS],
                given_up: [false; MAX_CALLS],
                finished_ok: false,
                disturbed: false,
            },
        }
    }

    /// The recovering process `by` (B or C).
    pub(crate) fn recoverer(&self, by: Proc) -> &Recoverer {
        &self.recoverers[usize::from(by == Proc::C)]
    }

    pub(crate) fn recoverer_mut(&mut self, by: Proc) -> &mut Recoverer {
        &mut self.recoverers[usize::from(by == Proc::C)]
    }

    /// Why `call` is unknown to everyone, if it is: it took effect, and the runner that alone
    /// could know it crashed before the store or a compensation did.
    pub fn gap(&self, call: usize) -> Option<Gap> {
        if self.runner.at != RunnerAt::Crashed || !self.world.effect[call] {
            return None;
        }
        match self.runner.known[call] {
            Known::Unknown => Some(Gap::BeforeRecord),
            Known::LocalOnly
                if self.world.compensations[call] == 0
                    && self.world.late[call] == 0
                    && !self.world.given_up[call] =>
            {
                Some(Gap::LocalOnlyCrash)
            }
            _ => None,
        }
    }

    /// Whether `call` succeeded: its effect happened and its success was returned to a caller
    /// alive to go on (a call in a [`Gap`] is counted apart).
    pub fn succeeded(&self, call: usize) -> bool {
        self.world.effect[call] && self.gap(call).is_none()
    }

    /// Whether `call` was handled by a rollback: compensated at least once, or failed for good
    /// after every attempt.
    pub fn rolled_back(&self, call: usize) -> bool {
        self.world.compensations[call] > 0
            || self.world.given_up[call]
            || self.store.entries[call] == Some(super::store::Status::Failed)
    }
}
