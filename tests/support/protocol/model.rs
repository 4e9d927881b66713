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
    /// The lease is renewed only before each compensating action, not during it: an action
    /// that outlasts the lease (without timing out) lets it run out with no fault at all.
    RenewOnlyBeforeAction,
    /// A recoverer that got `Lost` on a run calls `claim_orphan` again in the same pass, which
    /// takes the run back as soon as its new owner's lease runs out. With the lease renewed
    /// during every action, that takes a stall of the new owner each time: the pass goes on
    /// as long as stalls keep coming, which [`Property::PassesEnd`](super::Property::PassesEnd)
    /// catches and [`Property::Terminates`](super::Property::Terminates) (no fault after the
    /// last) cannot.
    ReclaimAfterLoss,
    /// `take_paused` takes whatever pause the run waits at: the decisions were checked against
    /// the turn an earlier `load_paused` read, and a later pause waits on the same call.
    TakeAnyPause,
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
    /// How many times the run may pause on the gated call (0: never). A pauses it once at most,
    /// before or between its calls; each resume that runs the gated call may pause it again,
    /// up to this.
    ///
    /// A pauses only while at most one recoverer runs (C not alongside B): a resumed run left
    /// to recovery is recovered as A's run is, and two recoverers taking it from each other
    /// are explored on A's run; with them on resumed runs too, two calls and two attempts grow
    /// to millions of states.
    pub pauses: u8,
    /// How many recovering processes may run at once: 1, C is only ever B restarted; 2, the
    /// environment may also start C alongside B before anything else happens.
    pub replicas: u8,
    /// The protocol followed.
    pub variant: Variant,
}

impl Model {
    /// The protocol under test within `calls` and `max_attempts`, with two pauses at most and
    /// two recoverers at once.
    pub fn protocol(calls: u8, max_attempts: u8) -> Self {
        Self {
            calls,
            max_attempts,
            pauses: 2,
            replicas: 2,
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
        let recoverers = if self.replicas > 1 {
            "recoverers B and C (C alongside B, or B restarted)"
        } else {
            "recoverer B (+ C, B restarted)"
        };
        write!(
            f,
            "{:?}, runner A + {recoverers} + resumes R1 and R2 (decisions for pause 1), {} calls \
             one after another (any may fail), {} attempts per compensation, {} pauses at most \
             (made with one recoverer running); crashes, stalls and timeouts anywhere",
            self.variant, self.calls, self.max_attempts, self.pauses
        )
    }
}
