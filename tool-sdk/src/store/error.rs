//! Why a store operation failed, and the future every store operation returns.

use std::future::Future;
use std::pin::Pin;

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed: a run store's, a chat memory's or a replay guard's.
///
/// Match it by variant:
///
/// ```
/// use tool_sdk::store::StoreError;
///
/// let error = StoreError::UnknownRun("run-1".into());
/// assert!(matches!(error, StoreError::UnknownRun(ref run) if run == "run-1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store knows no run with this id in the state the operation needs (never there, or
    /// finished so long ago that it was forgotten).
    #[error("no paused run `{0}`: unknown, or finished long ago")]
    UnknownRun(String),
    /// The run is not waiting at the pause a resume named: another resume took that pause (in
    /// this process or another), and the run went on from it, to its end or to a later pause.
    /// Nothing ran for this resume.
    #[error("the pause of run `{0}` was decided already: the run went on without this resume")]
    AlreadyDecided(String),
    /// Another owner took the run over (this owner's lease ran out); this owner must stop.
    #[error("the run `{0}` is no longer owned here: its lease ran out and it was taken over")]
    Lost(String),
    /// A row read back failed its seal ([`RowSeal`](crate::store::RowSeal)): it was edited
    /// in the database, moved from another run, written without a seal, or sealed with another
    /// key. Nothing ran from it, and it is left where it is.
    #[error(
        "the stored {what} of run `{run}` is refused: {reason}; it was changed outside the \
         store, or sealed with another key, so nothing runs from it"
    )]
    Tampered {
        /// The run the row belongs to.
        run: String,
        /// Which row: "paused turn" or "compensation record entry".
        what: &'static str,
        /// Why the seal check failed.
        reason: &'static str,
    },
    /// The storage itself failed.
    #[error("the store failed: {0}")]
    Backend(String),
}
