//! The state of the model: the store's row, what each process knows and is doing, who
//! believes it holds the lease, and what happened in the world.
//!
//! The world keeps no count that can grow without end: a run handed back and forth forever,
//! each holder repeating a compensation, must come back to a state already seen, a cycle the
//! liveness check can see, not an endless line of new states. So a call's compensations are
//! counted up to "twice or more", all any property asks, and the repeats still excused are cut
//! down to those that could be used ([`State::bound_spare`]).

use super::store::Store;

/// The most calls a model can have (the arrays of a state are this long).
pub const MAX_CALLS: usize = 3;

/// The most timed-out compensations of one call that may be pending (still to take effect) at
/// once: a bound of the exploration, not an abstraction; with this many pending, a timeout
/// does not offer to take effect later. Explorations with one recoverer at a time never reach
/// it; with two, a run taken back and forth by stalls could pile them up without end.
pub const LATE_CAP: u8 = 3;

/// A process that may own the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Proc {
    /// The runner: begins the run, makes its calls, rolls back on failure.
    A,
    /// A recovering process: recovery passes, each a `claim_orphan` loop.
    B,
    /// A second recovering replica, running alongside B from the start, or B restarted once B
    /// crashed: a fresh recovering owner either way; it never crashes.
    C,
    /// A resume holding the decisions for the run's first pause.
    R1,
    /// The same decisions sent again: a second resume racing R1, or a client retrying after R1
    /// returned (the interleavings give both).
    R2,
}

impl Proc {
    /// Every process, in the order of [`State::holds`].
    pub(crate) const ALL: [Proc; 5] = [Proc::A, Proc::B, Proc::C, Proc::R1, Proc::R2];

    /// The recovering processes.
    pub(crate) const RECOVERERS: [Proc; 2] = [Proc::B, Proc::C];

    /// The resumes.
    pub(crate) const RESUMERS: [Proc; 2] = [Proc::R1, Proc::R2];

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
    /// Paused the run on the gated call and returned the paused turn: its part is over; a
    /// resume goes on with the run.
    Paused,
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

/// Where a recovering process is. A recovery pass is a `claim_orphan` loop: it claims a run,
/// rolls it back, and claims again until `claim_orphan` finds nothing. `Idle` is between
/// passes; every other place but `Dormant` and `Crashed` is inside one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecovererAt {
    /// Not started (C, before B crashed, when it is B restarted).
    Dormant,
    /// Between passes: the next pass claims an orphan as soon as there is one.
    Idle,
    /// Got `Lost` on the run and, in the same pass, is about to call `claim_orphan` again
    /// (only under [`Variant::ReclaimAfterLoss`](super::Variant::ReclaimAfterLoss): the
    /// protocol skips a run lost in the pass, so that pass ends).
    Reclaiming,
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

/// Where a resume is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResumerAt {
    /// Not sent yet (the decisions exist once the run paused for the first time).
    Waiting,
    /// `load_paused` found a paused turn the decisions fit: about to `take_paused`.
    Loaded,
    /// Took the run: the gated call is about to run.
    Calling,
    /// The gated call ran: the run goes on, to another pause or to its end.
    Continuing,
    /// Returned: the run went on from the pause, or the resume was refused.
    Done,
    /// Crashed while it owned the run: does nothing more.
    Crashed,
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
    /// How many times each call's compensation took effect: 0, 1, or 2 for twice or more (no
    /// property asks for more).
    pub compensations: [u8; MAX_CALLS],
    /// Per call, how many more times its compensation may take effect: one, plus one per
    /// interrupted attempt (its owner crashed or its lease expired during it, or it timed out),
    /// less the times it took effect; below zero, S2 is violated. After each step it is cut
    /// down to what could be used before another interruption (`State::bound_spare`): it
    /// never exceeds that count, so the check of it is never weaker than S2.
    pub spare: [i8; MAX_CALLS],
    /// Timed-out compensations of each call that will still take effect.
    pub late: [u8; MAX_CALLS],
    /// Local-only calls whose every compensation attempt timed out: reported failed for good.
    pub given_up: [bool; MAX_CALLS],
    /// Whether the runner's `finish` on the success path succeeded: it reported success.
    pub finished_ok: bool,
    /// Whether a crash, an expiry or a timeout happened.
    pub disturbed: bool,
    /// How many times the run paused on the gated call (each pause is numbered by this count).
    pub pauses: u8,
    /// How many times the gated call ran with the decisions for the first pause: the one
    /// approval of the model.
    pub gated_runs: u8,
}

impl World {
    /// A compensation of `call` took effect.
    pub(crate) fn compensate(&mut self, call: usize) {
        self.compensations[call] = (self.compensations[call] + 1).min(2);
        self.spare[call] -= 1;
    }

    /// An attempt at `call`'s compensation was interrupted: one more repeat is excused.
    pub(crate) fn interrupt(&mut self, call: usize) {
        self.spare[call] += 1;
    }
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
    /// The resumes, R1 then R2.
    pub resumers: [ResumerAt; 2],
    /// Per process (A, B, C, R1, R2): whether it believes it holds the lease (its last
    /// `begin`, `renew`, `claim_orphan` or `take_paused` succeeded, and it has neither expired,
    /// finished, paused nor crashed since).
    pub holds: [bool; 5],
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
            resumers: [ResumerAt::Waiting; 2],
            holds: [false; 5],
            world: World {
                effect: [false; MAX_CALLS],
                compensations: [0; MAX_CALLS],
                spare: [1; MAX_CALLS],
                late: [0; MAX_CALLS],
                given_up: [false; MAX_CALLS],
                finished_ok: false,
                disturbed: false,
                pauses: 0,
                gated_runs: 0,
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

    /// How many recovering processes are running (started, not crashed).
    pub(crate) fn live_recoverers(&self) -> usize {
        self.recoverers
            .iter()
            .filter(|recoverer| {
                !matches!(recoverer.at, RecovererAt::Dormant | RecovererAt::Crashed)
            })
            .count()
    }

    /// Where the resume `by` (R1 or R2) is.
    pub(crate) fn resumer(&self, by: Proc) -> ResumerAt {
        self.resumers[usize::from(by == Proc::R2)]
    }

    pub(crate) fn resumer_mut(&mut self, by: Proc) -> &mut ResumerAt {
        &mut self.resumers[usize::from(by == Proc::R2)]
    }

    /// Cuts each call's spare ([`World::spare`]) down to the compensations of it that could
    /// take effect before another interruption: each one in flight that has not taken effect,
    /// each timed-out one pending, and one fresh attempt (a second fresh attempt needs the run
    /// taken over from an owner in the middle of the first, an interruption). Uncut, the spare
    /// would grow without end as stalls hand a run back and forth, and the states with it. The
    /// cut never raises the spare, so S2 can only grow stricter: a false alarm, were one
    /// possible, would show as a violation; a repeat is never hidden.
    pub(crate) fn bound_spare(&mut self) {
        for call in 0..MAX_CALLS {
            let in_flight = |at: Option<(u8, bool)>| usize::from(at == Some((call as u8, false)));
            let runner = match self.runner.at {
                RunnerAt::Compensating { call, effected, .. } => Some((call, effected)),
                _ => None,
            };
            let mut usable = 1 + usize::from(self.world.late[call]) + in_flight(runner);
            for recoverer in &self.recoverers {
                if let RecovererAt::Compensating { call, effected } = recoverer.at {
                    usable += in_flight(Some((call, effected)));
                }
            }
            let usable = i8::try_from(usable).unwrap_or(i8::MAX);
            self.world.spare[call] = self.world.spare[call].min(usable);
        }
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
