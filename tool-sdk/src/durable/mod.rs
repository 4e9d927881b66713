//! What must outlive a process: the record of each run (which compensable calls succeeded, and
//! which were rolled back), paused runs waiting for decisions, and chat memory.
//!
//! One seam, [`RunStore`], keeps a run's life: it *begins* (owned by this process under a
//! lease the loop renews), each compensable success is *recorded* before the loop goes on
//! (write-ahead), each rollback's completion is recorded, it may *pause* (and be taken back by
//! exactly one resumer, in any process), and it *finishes*. A run that stopped in the middle —
//! its process crashed — is an *orphan*: [`ToolLoop::recover`](crate::run::ToolLoop::recover)
//! claims it and rolls back what it recorded, newest first, each once.
//!
//! | store | where | pick it when |
//! |---|---|---|
//! | [`InMemoryRunStore`] | this process | tests; nothing must survive a restart |
//! | `SqliteStore` (feature `sqlite`) | one file | one process; survive restarts |
//! | `PostgresStore` (feature `postgres`) | a server | several replicas share runs |
//!
//! Compensating actions receive a stable idempotency key ([`RecordEntry::idempotency_key`],
//! as the context's call id): a rollback repeated after a crash between doing it and recording
//! it carries the same key, so the action can make the repetition harmless.

mod memory;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod migrations;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::compensate::RecordEntry;
pub use crate::gate::{StoreError, StoreFuture};
/// The connection pool [`PostgresStore::from_pool`] takes, at the version this crate uses.
#[cfg(feature = "postgres")]
pub use deadpool_postgres;
pub use memory::InMemoryRunStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use crate::compensate::MAX_COMPENSATION_ATTEMPTS;
use crate::run::PausedRun;

/// How long a store remembers who finished a run: a late `finish` by an owner that lost the
/// run meanwhile is refused within this time.
pub(crate) const FINISHED_KEPT: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a run stays owned without a renewal, by default. The loop renews at a third of it.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The opaque id of a run; a paused run is resumed by it. The loop's runs get a random
/// per-process prefix and a counter, unique across processes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A fresh random id.
    pub fn random() -> Result<Self, StoreError> {
        crate::gate::random_token().map(Self)
    }

    /// An id received back, e.g. from the person who decides on a paused run.
    pub fn from_string(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which unfinished runs of other owners [`RunStore::claim_orphan`] may take over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Orphans {
    /// Runs whose lease ran out: their process stopped renewing it. Safe with replicas.
    Expired,
    /// Every run in progress that another owner holds, leased or not: for a single process at
    /// start-up, when whatever holds a run must be a previous, crashed incarnation. Never with
    /// replicas, whose live runs it would take.
    All,
}

/// An unfinished run claimed for recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The run.
    pub run: RunId,
    /// Its recorded successes not yet rolled back, oldest first: never tried, or timed out
    /// ([`RecordEntry::attempts`] says how often).
    pub pending: Vec<RecordEntry>,
}

/// How a compensation ended, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compensated {
    /// The compensating action succeeded: the call's effect no longer holds.
    Done,
    /// It failed with this message; the entry stays recorded as failed, not tried again.
    Failed(String),
    /// It timed out, for the `attempts`-th time: it may still have taken effect, so recovery
    /// tries it again (with the same idempotency key) while fewer than
    /// [`MAX_COMPENSATION_ATTEMPTS`].
    TimedOut {
        /// Attempts so far, all timed out.
        attempts: u32,
    },
}

impl Compensated {
    /// The text the SQL stores keep: `done`, `failed: MESSAGE` or `timed out: ATTEMPTS`.
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn to_column(&self) -> String {
        match self {
            Self::Done => "done".to_owned(),
            Self::Failed(message) => format!("failed: {message}"),
            Self::TimedOut { attempts } => format!("{TIMED_OUT_PREFIX}{attempts}"),
        }
    }

    /// The timed-out attempts a stored outcome says an entry still pending has had; `None`
    /// when it is done or failed for good (not pending).
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn pending_attempts(column: Option<&str>) -> Option<u32> {
        match column {
            None => Some(0),
            Some(text) => text
                .strip_prefix(TIMED_OUT_PREFIX)
                .map(|n| n.parse().unwrap_or(MAX_COMPENSATION_ATTEMPTS)),
        }
    }
}

/// How a timed-out compensation is written in the SQL stores' text column.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) const TIMED_OUT_PREFIX: &str = "timed out: ";

/// The durable record of runs. Every method is one atomic step; the loop awaits each before it
/// goes on. Runs are owned: a store instance acts as one owner, and a write to a run that
/// another owner has taken over fails with [`StoreError::Lost`].
pub trait RunStore: Send + Sync {
    /// A run starts, owned by this store instance until `lease` from now.
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()>;

    /// Extends the lease of a run this instance owns.
    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()>;

    /// Gives up a run this instance owns without ending it (a rollback that must be tried
    /// again): it has no owner, and any owner, this one included, may claim it for recovery
    /// once `after` has passed.
    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()>;

    /// Records a compensable call's success (write-ahead: before the loop goes on).
    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()>;

    /// Records that the entry with `idempotency_key` was rolled back (or failed to be).
    fn compensated<'a>(
        &'a self,
        run: &'a RunId,
        idempotency_key: &'a str,
        outcome: &'a Compensated,
    ) -> StoreFuture<'a, ()>;

    /// The run pauses for decisions: `paused` waits until taken.
    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedRun) -> StoreFuture<'a, ()>;

    /// Reads a paused run without taking it.
    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedRun>;

    /// Takes a paused run back to go on with it, owned by this instance for `lease`: of two
    /// concurrent takes (in any processes), exactly one succeeds; the other gets
    /// [`StoreError::UnknownRun`].
    fn take_paused<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, PausedRun>;

    /// The run ended (answered, rolled back, recovered): its record is dropped.
    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()>;

    /// Claims one unfinished run of another owner, of `which` kind, for recovery: atomically,
    /// so one run goes to one claimer; it is then owned by this instance for `lease`. `None`
    /// when there is none. Paused runs are never orphans: they wait for a person.
    fn claim_orphan(&self, which: Orphans, lease: Duration) -> StoreFuture<'_, Option<Orphan>>;
}

/// A store for everything that must outlive a process: runs, chat memory, the gate's paused
/// turns, and the used nonces of sealed tokens. Every type that is all four is one (the SQLite
/// and PostgreSQL stores are).
pub trait DurableStore:
    RunStore + crate::ChatMemory + crate::gate::PausedTurnStore + crate::gate::ReplayGuard
{
}

impl<T> DurableStore for T where
    T: RunStore
        + crate::ChatMemory
        + crate::gate::PausedTurnStore
        + crate::gate::ReplayGuard
        + ?Sized
{
}

/// Encodes a paused run for a store.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn encode_paused(paused: &PausedRun) -> Result<String, StoreError> {
    serde_json::to_string(paused)
        .map_err(|e| StoreError::Backend(format!("cannot encode the paused run: {e}")))
}

/// Decodes a paused run a store kept.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn decode_paused(text: &str) -> Result<PausedRun, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Backend(format!("the stored paused run is unreadable: {e}")))
}

/// A random owner token for a store instance.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn owner_token() -> Result<String, StoreError> {
    crate::gate::random_token()
}
