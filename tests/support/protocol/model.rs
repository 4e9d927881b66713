//! The bounds of an exploration, and which protocol it explores.

use std::fmt;

/// Which protocol the model follows: the one the store implements, or a mutation of it that the
/// checker must catch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The protocol under test: on `Lost` the runner still compensates what only it knows
    /// (local-only calls, and the call in flight once it returns), skips recorded calls (the new
    /// owner has them) and never finishes; a timed-out compensation leaves the run to recovery.
    Protocol,
    /// The earlier protocol: on `Lost` the runner compensates nothing, and the heartbeat drops the call
    /// in flight (its success is never seen).
    BeforeFix,
    /// `claim_orphan` takes runs whose lease is still live.
    ClaimIgnoresLease,
    /// `claim_orphan` hands over every entry, rolled back ones included.
    ClaimReadsEverything,
    /// The rollback undoes the call that failed too (which had no effect).
    RollbackIncludesFailedCall,
    /// `claim_orphan` never takes a run its caller owns, even once its lease expired: a recoverer
    /// that released a run after a timed-out compensation cannot retry it.
    ClaimSkipsOwnRuns,
    /// Recovery finishes a run even when one of its compensations timed out.
    RecoveryFinishesAfterTimeout,
    /// The runner tries a local-only compensation once: after a timeout it gives up.
    LocalOnlyNotRetried,
    /// `finish` of a run that another owner already finished succeeds (the run is gone, so
    /// there is nothing to compare the owner with).
    FinishForgetsOwner,
}

/// The bounds of one exploration and the protocol it follows.
#[derive(Debug, Clone, Copy)]
pub struct Model {
    /// How many compensable calls the runner makes, one after another (at most
    /// [`MAX_CALLS`](super::MAX_CALLS)); any of them may fail instead, and the run may end
    /// successfully after any of them.
    pub calls: u8,
    /// Attempts at a compensation before it is failed for good.
    pub max_attempts: u8,
    /// The protocol followed.
    pub variant: Variant,
}

impl Model {
    /// The protocol under test within `calls` and `max_attempts`.
    pub fn protocol(calls: u8, max_attempts: u8) -> Self {
        Self {
            calls,
            max_attempts,
            variant: Variant::Protocol,
        }
    }

    /// The same bounds, following `variant`.
    pub fn with(self, variant: Variant) -> Self {
        Self { variant, ..self }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?}, runner A + recoverer B (+ C, B restarted), {} calls one after another (any \
             may fail), {} attempts per compensation; crashes, lease expiries and timeouts \
             anywhere",
            self.variant, self.calls, self.max_attempts
        )
    }
}
