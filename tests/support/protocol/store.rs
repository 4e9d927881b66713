//! The store's side of the protocol: one run's row and its entries, and one method per
//! [`RunStore`](tool_sdk::store::RunStore) operation, each one atomic step.

use super::state::{Proc, MAX_CALLS};

/// The run's phase in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// `begin` has not happened yet.
    NotBegun,
    /// Owned by `owner`, whose lease is `live` or has expired.
    Running {
        /// The owner, the only one whose writes are accepted.
        owner: Proc,
        /// Whether the lease still runs; `claim_orphan` waits until it does not.
        live: bool,
    },
    /// Paused on the gated call, waiting for a person's decisions: no owner, no lease; never an
    /// orphan. `pause` numbers it among the run's pauses (1, 2, ...).
    Paused {
        /// Which pause this is.
        pause: u8,
    },
    /// `finish` happened.
    Finished,
}

/// A recorded call's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Recorded, not rolled back.
    Pending,
    /// Rolled back.
    Done,
    /// This many attempts timed out; recovery tries again.
    TimedOut(u8),
    /// Every attempt timed out: failed for good, reported, not tried again.
    Failed,
}

/// How a compensation ended, as `compensated` records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The compensating action returned.
    Done,
    /// It timed out; it may still take effect.
    TimedOut,
}

/// A write refused because the writer no longer owns the run (`StoreError::Lost`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lost;

/// A resume refused: the run does not wait at the pause its decisions were made for
/// (`StoreError::AlreadyDecided`, or `UnknownRun` once it is finished).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decided;

/// One run's row in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Store {
    /// Its phase.
    pub phase: Phase,
    /// The recorded calls, by call index (calls run one after another, so this is also the
    /// order they were recorded in).
    pub entries: [Option<Status>; MAX_CALLS],
}

impl Store {
    /// An empty store.
    pub(crate) fn new() -> Self {
        Self {
            phase: Phase::NotBegun,
            entries: [None; MAX_CALLS],
        }
    }

    /// Whether `by` owns the run, lease live or not: the check of every write.
    pub(crate) fn owned_by(&self, by: Proc) -> bool {
        matches!(self.phase, Phase::Running { owner, .. } if owner == by)
    }

    fn owned(&self, by: Proc) -> Result<(), Lost> {
        if self.owned_by(by) {
            Ok(())
        } else {
            Err(Lost)
        }
    }

    /// `begin`: the run starts, owned by `by`.
    pub(crate) fn begin(&mut self, by: Proc) {
        self.phase = Phase::Running {
            owner: by,
            live: true,
        };
    }

    /// `renew`: the owner's lease runs again.
    pub(crate) fn renew(&mut self, by: Proc) -> Result<(), Lost> {
        self.owned(by)?;
        self.phase = Phase::Running {
            owner: by,
            live: true,
        };
        Ok(())
    }

    /// `record`: a compensable call's success, write-ahead.
    pub(crate) fn record(&mut self, by: Proc, call: u8) -> Result<(), Lost> {
        self.owned(by)?;
        self.entries[usize::from(call)] = Some(Status::Pending);
        Ok(())
    }

    /// `compensated`: how an attempt ended. A timeout counts one more attempt; the last one
    /// allowed fails the entry for good. Returns the entry's new status.
    pub(crate) fn compensated(
        &mut self,
        by: Proc,
        call: u8,
        outcome: Outcome,
        max_attempts: u8,
    ) -> Result<Status, Lost> {
        self.owned(by)?;
        let entry = &mut self.entries[usize::from(call)];
        let status = match (outcome, *entry) {
            (Outcome::Done, _) => Status::Done,
            (Outcome::TimedOut, Some(Status::TimedOut(n))) => timed_out(n + 1, max_attempts),
            (Outcome::TimedOut, _) => timed_out(1, max_attempts),
        };
        *entry = Some(status);
        Ok(status)
    }

    /// `pause`: the run waits at its pause number `pause`; its owner lets it go.
    pub(crate) fn pause(&mut self, by: Proc, pause: u8) -> Result<(), Lost> {
        self.owned(by)?;
        self.phase = Phase::Paused { pause };
        Ok(())
    }

    /// `load_paused`: which pause the run waits at, if it is paused.
    pub(crate) fn load_paused(&self) -> Option<u8> {
        match self.phase {
            Phase::Paused { pause } => Some(pause),
            _ => None,
        }
    }

    /// `take_paused`: `by` takes the paused run, owned with a live lease. With `pause`, only
    /// while the run waits at exactly that pause, in the same step; `None` takes whatever pause
    /// it waits at. `Err` (`AlreadyDecided`, or `UnknownRun` for a run not paused) leaves the
    /// run as it was.
    pub(crate) fn take_paused(&mut self, by: Proc, pause: Option<u8>) -> Result<(), Decided> {
        match (self.load_paused(), pause) {
            (Some(at), Some(wanted)) if at != wanted => Err(Decided),
            (Some(_), _) => {
                self.begin(by);
                Ok(())
            }
            (None, _) => Err(Decided),
        }
    }

    /// `finish`: the run ended. With `forgets_owner`, as a store that deletes finished runs
    /// behaves: finishing a run that is already finished succeeds, whoever finished it.
    pub(crate) fn finish(&mut self, by: Proc, forgets_owner: bool) -> Result<(), Lost> {
        if forgets_owner && self.phase == Phase::Finished {
            return Ok(());
        }
        self.owned(by)?;
        self.phase = Phase::Finished;
        Ok(())
    }

    /// `claim_orphan`: `by` takes the run over, and reads the entries left to roll back (with
    /// `everything`, all of them). Whether it may is the caller's rule ([`Claim`]); `None`
    /// when it may not.
    pub(crate) fn claim_orphan(
        &mut self,
        by: Proc,
        rule: Claim,
        everything: bool,
    ) -> Option<[bool; MAX_CALLS]> {
        let Phase::Running { owner, live } = self.phase else {
            return None;
        };
        let allowed = match rule {
            Claim::Expired => !live,
            Claim::ExpiredOfOthers => !live && owner != by,
            Claim::AnyOfOthers => owner != by,
        };
        if !allowed {
            return None;
        }
        self.phase = Phase::Running {
            owner: by,
            live: true,
        };
        Some(self.entries.map(|entry| match entry {
            Some(Status::Pending | Status::TimedOut(_)) => true,
            Some(Status::Done | Status::Failed) => everything,
            None => false,
        }))
    }
}

/// Which runs `claim_orphan` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// A run whose lease expired, whoever owned it (the claimer only claims when idle, so a run
    /// it owns and whose lease expired is one it released).
    Expired,
    /// A run whose lease expired, owned by another.
    ExpiredOfOthers,
    /// Any run another owns, lease live or not.
    AnyOfOthers,
}

fn timed_out(attempts: u8, max_attempts: u8) -> Status {
    if attempts >= max_attempts {
        Status::Failed
    } else {
        Status::TimedOut(attempts)
    }
}
