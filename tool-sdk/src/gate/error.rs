//! The one error of the gate: decisions that do not fit, a sealed token refused, or the store
//! that keeps paused turns failing. Whichever it is, nothing ran.

use crate::store::{PauseId, RunId, StoreError};

/// Shortest sealing key accepted, in bytes: a shorter one is a [`GateError::WeakKey`].
pub const MIN_KEY_BYTES: usize = 32;

/// Why the gate refused: the decisions do not fit the paused reply, a sealed token was refused,
/// or the store keeping the turn failed. Nothing ran. Match it by variant; each class of
/// variants shares its remedy, which [`is_decisions`](Self::is_decisions) (correct the
/// decisions, send them again), [`AlreadyDecided`](Self::AlreadyDecided) (read the run's
/// current pause), [`DeadlinePassed`](Self::DeadlinePassed) (deny, or let the deadline deny),
/// [`is_token`](Self::is_token) (the token cannot be used) and
/// [`is_store`](Self::is_store) tell apart.
///
/// ```
/// use tool_sdk::gate::GateError;
///
/// let error = GateError::MissingDecision { key: "c1".into() };
/// assert!(matches!(error, GateError::MissingDecision { ref key } if key == "c1"));
/// assert!(error.is_decisions());
/// assert!(!error.is_token() && !error.is_store());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GateError {
    /// A call of the reply has no decision; every call needs one.
    #[error("no decision on the call `{key}`: every call of the reply needs one")]
    MissingDecision {
        /// The undecided call's key.
        key: String,
    },
    /// Two decisions name the same call.
    #[error("two decisions on the call `{key}`")]
    DuplicateDecision {
        /// The key named twice.
        key: String,
    },
    /// A decision names no call of the reply.
    #[error("the decision on `{key}` names no call of the reply")]
    UnknownKey {
        /// The unknown key.
        key: String,
    },
    /// An allowance was given for other arguments (or another tool) than the call has.
    #[error("the allowance of `{key}` was given for other arguments than the call has")]
    ArgumentsChanged {
        /// The call's key.
        key: String,
    },
    /// A person's arguments for a call do not fit its tool
    /// ([`Verdict::AllowEdited`](crate::gate::Verdict::AllowEdited)): nothing ran, and the turn
    /// is still paused for corrected ones.
    #[error("the arguments given for `{key}` do not fit its tool: {reason}")]
    EditRefused {
        /// The call's key.
        key: String,
        /// What does not fit, as the tool's check says.
        reason: String,
    },

    /// The decisions were built for another pause than the turn in hand waits at (from
    /// another turn, or another pause of its run): nothing ran, and the turn is still paused.
    /// Decisions apply to the pause they were built from ([`PausedTurn::decide`]).
    ///
    /// [`PausedTurn::decide`]: crate::store::PausedTurn::decide
    #[error(
        "the decisions were built for another pause (`{decisions_for}`) than this turn waits at \
         (`{paused_at}`): nothing ran; build them from the turn they decide"
    )]
    OtherPause {
        /// The pause the decisions name.
        decisions_for: PauseId,
        /// The pause of the turn they were given with.
        paused_at: PauseId,
    },

    /// The decisions were made for a pause the run no longer waits at: another resume decided
    /// it (a race, or the same decisions sent again), and the run went on, to its end or to a
    /// later pause. Nothing ran for these decisions; a later pause needs decisions of its own.
    #[error(
        "the decisions are for pause `{pause}`, which was decided already: nothing ran for them \
         (the run went on; a later pause needs decisions of its own)"
    )]
    AlreadyDecided {
        /// The pause the decisions name.
        pause: PauseId,
    },

    /// An allowance came after the pause's deadline
    /// ([`ConfirmationPolicy::with_deadline`](crate::gate::ConfirmationPolicy::with_deadline)):
    /// past it, a call that waited may only be denied. Nothing ran, and the turn is still
    /// paused, for its expiry ([`PausedTurn::expiry`](crate::store::PausedTurn::expiry)) or a
    /// denial.
    #[error(
        "the allowance of `{key}` came after the pause's deadline ({deadline}, unix seconds): \
         past it a call may only be denied"
    )]
    DeadlinePassed {
        /// The call's key.
        key: String,
        /// The deadline, in seconds since the Unix epoch.
        deadline: u64,
    },

    /// The key is shorter than [`MIN_KEY_BYTES`].
    #[error("a sealing key needs at least {min} bytes, got {0}", min = MIN_KEY_BYTES)]
    WeakKey(usize),
    /// The token is not of the form this sealer writes.
    #[error("the token is malformed: {0}")]
    Malformed(&'static str),
    /// The token's signature does not match its content: it was changed, or sealed with
    /// another key.
    #[error("the token's signature does not match: it was changed or sealed with another key")]
    BadSignature,
    /// The token expired.
    #[error("the token expired at {expired_at} (unix seconds)")]
    Expired {
        /// When it expired, in seconds since the Unix epoch.
        expired_at: u64,
    },
    /// The token was used already.
    #[error("the token was used already")]
    Replayed,
    /// The store has no turn paused under this id ([`Gate::keep`](crate::gate::Gate::keep)
    /// kept none, or it was resumed so long ago that it was forgotten). Nothing ran.
    #[error("no paused turn `{id}` in the store: never kept there, or resumed long ago")]
    UnknownTurn {
        /// The id asked for.
        id: RunId,
    },
    /// The turn is a tool loop's run waiting for a person to extend its budget
    /// ([`OnExhausted::Ask`](crate::run::OnExhausted::Ask)): only the loop knows what its
    /// decision does, so only [`ToolLoop::resume`](crate::run::ToolLoop::resume) resumes it.
    /// Nothing ran, and the turn is still paused.
    #[error(
        "run `{id}` waits for a person to extend its budget: resume it with its tool loop, \
         not the gate alone"
    )]
    BudgetPause {
        /// The run's id.
        id: RunId,
    },
    /// The store keeping the paused turn failed, or has no such run (of a loop: unknown, or
    /// finished long ago).
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl GateError {
    /// Whether the decisions do not fit the paused reply ([`MissingDecision`](Self::MissingDecision),
    /// [`DuplicateDecision`](Self::DuplicateDecision), [`UnknownKey`](Self::UnknownKey),
    /// [`ArgumentsChanged`](Self::ArgumentsChanged), [`EditRefused`](Self::EditRefused),
    /// [`OtherPause`](Self::OtherPause)): correct
    /// them and send them again, the turn is still paused.
    pub fn is_decisions(&self) -> bool {
        matches!(
            self,
            Self::MissingDecision { .. }
                | Self::DuplicateDecision { .. }
                | Self::UnknownKey { .. }
                | Self::ArgumentsChanged { .. }
                | Self::EditRefused { .. }
                | Self::OtherPause { .. }
        )
    }

    /// Whether a sealed token, or the key to seal with, was refused ([`WeakKey`](Self::WeakKey),
    /// [`Malformed`](Self::Malformed), [`BadSignature`](Self::BadSignature),
    /// [`Expired`](Self::Expired), [`Replayed`](Self::Replayed)): the turn cannot be resumed
    /// from that token.
    pub fn is_token(&self) -> bool {
        matches!(
            self,
            Self::WeakKey(_)
                | Self::Malformed(_)
                | Self::BadSignature
                | Self::Expired { .. }
                | Self::Replayed
        )
    }

    /// Whether the store failed or has no such paused turn ([`UnknownTurn`](Self::UnknownTurn),
    /// [`Store`](Self::Store)).
    pub fn is_store(&self) -> bool {
        matches!(self, Self::UnknownTurn { .. } | Self::Store(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One error of each variant, with the class its remedy belongs to.
    fn one_of_each() -> Vec<(GateError, &'static str)> {
        let key = || "c1".to_owned();
        let pause = || PauseId::from_string("p1");
        vec![
            (GateError::MissingDecision { key: key() }, "decisions"),
            (GateError::DuplicateDecision { key: key() }, "decisions"),
            (GateError::UnknownKey { key: key() }, "decisions"),
            (GateError::ArgumentsChanged { key: key() }, "decisions"),
            (
                GateError::EditRefused {
                    key: key(),
                    reason: "missing field `euros`".into(),
                },
                "decisions",
            ),
            (
                GateError::OtherPause {
                    decisions_for: pause(),
                    paused_at: PauseId::from_string("p2"),
                },
                "decisions",
            ),
            (GateError::AlreadyDecided { pause: pause() }, "decided"),
            (
                GateError::DeadlinePassed {
                    key: key(),
                    deadline: 1,
                },
                "late",
            ),
            (GateError::WeakKey(3), "token"),
            (GateError::Malformed("no dot"), "token"),
            (GateError::BadSignature, "token"),
            (GateError::Expired { expired_at: 1 }, "token"),
            (GateError::Replayed, "token"),
            (
                GateError::BudgetPause {
                    id: RunId::from_string("r1"),
                },
                "loop",
            ),
            (
                GateError::UnknownTurn {
                    id: RunId::from_string("r1"),
                },
                "store",
            ),
            (
                GateError::Store(StoreError::Backend("down".into())),
                "store",
            ),
        ]
    }

    #[test]
    fn each_variant_is_in_exactly_the_class_of_its_remedy() {
        for (error, class) in one_of_each() {
            let classes = [
                ("decisions", error.is_decisions()),
                ("decided", matches!(error, GateError::AlreadyDecided { .. })),
                ("late", matches!(error, GateError::DeadlinePassed { .. })),
                ("token", error.is_token()),
                ("store", error.is_store()),
                ("loop", matches!(error, GateError::BudgetPause { .. })),
            ];
            let found: Vec<&str> = classes
                .iter()
                .filter(|(_, is)| *is)
                .map(|(name, _)| *name)
                .collect();
            assert_eq!(found, [class], "{error:?}");
        }
    }
}
