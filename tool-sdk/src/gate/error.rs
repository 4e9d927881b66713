//! The one error of the gate: decisions that do not fit, a sealed token refused, or the store
//! that keeps paused turns failing. Whichever it is, nothing ran.

use crate::store::{PauseId, RunId, StoreError};

/// Shortest sealing key accepted, in bytes: a shorter one is a [`GateError::WeakKey`].
pub const MIN_KEY_BYTES: usize = 32;

/// Why the gate refused: the decisions do not fit the paused reply, a sealed token was refused,
/// or the store keeping the turn failed. Nothing ran; [`kind`](Self::kind) says which, and so
/// what to do next.
///
/// ```
/// use tool_sdk::gate::{GateError, GateErrorKind};
///
/// let error = GateError::MissingDecision { key: "c1".into() };
/// assert_eq!(error.kind(), GateErrorKind::Decisions);
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
    /// The store keeping the paused turn failed, or has no such run (of a loop: unknown, or
    /// finished long ago).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The classes of [`GateError`], each with its remedy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GateErrorKind {
    /// The decisions do not fit the paused reply: correct them and send them again (the turn
    /// is still paused).
    Decisions,
    /// The pause the decisions were for was decided already (twice sent, late, or raced):
    /// nothing ran for them. Read the run's current pause to decide again, if it has one.
    AlreadyDecided,
    /// A sealed token, or the key to seal with, was refused: the turn cannot be resumed from
    /// it.
    Token,
    /// The store failed or has no such paused turn.
    Store,
}

impl GateError {
    /// Which class of error this is.
    pub fn kind(&self) -> GateErrorKind {
        match self {
            Self::MissingDecision { .. }
            | Self::DuplicateDecision { .. }
            | Self::UnknownKey { .. }
            | Self::ArgumentsChanged { .. }
            | Self::OtherPause { .. } => GateErrorKind::Decisions,
            Self::AlreadyDecided { .. } => GateErrorKind::AlreadyDecided,
            Self::WeakKey(_)
            | Self::Malformed(_)
            | Self::BadSignature
            | Self::Expired { .. }
            | Self::Replayed => GateErrorKind::Token,
            Self::UnknownTurn { .. } | Self::Store(_) => GateErrorKind::Store,
        }
    }
}
