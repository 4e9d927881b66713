//! What must outlive a process: the record of each run (which compensable calls succeeded, and
//! which were rolled back), paused runs waiting for decisions, chat memory, and long work's
//! tasks.
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
//! A second seam, [`TaskStore`], keeps long work that outlives the request that started it (an
//! MCP server's tasks): where each stands, under a lease its server renews, and how it ended.
//!
//! Compensating actions receive a stable idempotency key ([`RecordEntry::idempotency_key`],
//! as the context's call id): a rollback repeated after a crash between doing it and recording
//! it carries the same key, so the action can make the repetition harmless.
#![doc = include_str!("guide.md")]

mod budget_ask;
mod chat_memory;
mod decision_record;
mod error;
mod history;
mod id;
mod in_memory;
mod in_memory_tasks;
mod lease;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod migrations;
mod paused;
#[cfg(feature = "postgres")]
mod postgres;
mod record;
mod replay;
mod seal;
#[cfg(feature = "sqlite")]
mod sqlite;
mod task;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod vector_bytes;

use std::time::{Duration, SystemTime};

pub(crate) use budget_ask::{BudgetAsk, BudgetMark, BudgetState, BudgetWaits};
pub use chat_memory::{ChatMemory, InMemoryChatMemory};
/// The connection pool [`PostgresStore::from_pool`] takes, at the version this crate uses.
#[cfg(feature = "postgres")]
pub use deadpool_postgres;
pub use decision_record::DecisionRecord;
pub use error::{StoreError, StoreFuture};
pub use history::{DecidedRun, RolledBack, RunEnded};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use id::owner_token;
#[cfg(any(feature = "mcp", feature = "approvals"))]
pub(crate) use id::random_token;
pub use id::{PauseId, RunId};
pub use in_memory::InMemoryRunStore;
pub use in_memory_tasks::InMemoryTaskStore;
pub(crate) use lease::Heartbeat;
pub(crate) use paused::RunState;
pub use paused::{CallSummary, PausedRun, PausedTurn, PendingCall};
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use record::TIMED_OUT_PREFIX;
pub use record::{Compensated, CompensationRecord, RecordEntry, MAX_COMPENSATION_ATTEMPTS};
pub(crate) use replay::unix_seconds;
pub use replay::{InMemoryReplayGuard, ReplayGuard};
pub(crate) use seal::HmacSha256;
pub use seal::RowSeal;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use task::{decode_state, encode_end};
pub use task::{StoredTask, TaskEnd, TaskState, TaskStore};

/// How long a store remembers who finished a run: a late `finish` by an owner that lost the
/// run meanwhile is refused within this time.
pub(crate) const FINISHED_KEPT: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a run stays owned without a renewal, by default. The loop renews at a third of it.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

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
    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedTurn) -> StoreFuture<'a, ()>;

    /// Reads the run's paused turn without taking it.
    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedTurn>;

    /// Takes the run's paused turn back to go on with it, owned by this instance for `lease`,
    /// only while the run waits at `pause` ([`PausedTurn::pause`]): checking and taking are one
    /// step. Of two concurrent takes (in any processes), exactly one succeeds; the other, and
    /// any take once the run went on (to its end or to a later pause), gets
    /// [`StoreError::AlreadyDecided`]. A run the store does not know gives
    /// [`StoreError::UnknownRun`].
    fn take_paused<'a>(
        &'a self,
        run: &'a RunId,
        pause: &'a PauseId,
        lease: Duration,
    ) -> StoreFuture<'a, PausedTurn>;

    /// The runs waiting at a pause, newest first, `limit` at most: what a screen where a person
    /// decides lists. A paused turn whose row fails its seal is left out (and refused, as
    /// always, when loaded or taken).
    fn list_paused(&self, limit: usize) -> StoreFuture<'_, Vec<PausedRun>>;

    /// The runs waiting at a pause whose [deadline](PausedTurn::deadline) is `now` or earlier,
    /// the earliest deadline first, `limit` at most: what
    /// [`ToolLoop::expire_overdue`](crate::run::ToolLoop::expire_overdue) denies. The default
    /// reads every paused run ([`list_paused`](Self::list_paused)); the SQLite and PostgreSQL
    /// stores find them by an index.
    fn list_overdue(&self, now: SystemTime, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        Box::pin(async move {
            let mut overdue: Vec<PausedRun> = self
                .list_paused(usize::MAX)
                .await?
                .into_iter()
                .filter(|run| run.turn.is_overdue(now))
                .collect();
            overdue.sort_by_key(|run| run.turn.deadline());
            overdue.truncate(limit);
            Ok(overdue)
        })
    }

    /// Keeps `decided` in the history of decisions, in place of what it kept for the same run
    /// and pause (the running record, replaced by the ended one). The default keeps nothing: a
    /// store of the application's own that keeps no history shows none.
    fn keep_decided<'a>(&'a self, decided: &'a DecidedRun) -> StoreFuture<'a, ()> {
        let _ = decided;
        Box::pin(async { Ok(()) })
    }

    /// The history of decisions, newest first: `limit` records after skipping `skip`.
    fn list_decided(&self, skip: usize, limit: usize) -> StoreFuture<'_, Vec<DecidedRun>> {
        let _ = (skip, limit);
        Box::pin(async { Ok(Vec::new()) })
    }

    /// The run ended (answered, rolled back, recovered): its record is dropped.
    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()>;

    /// Claims one unfinished run of another owner, of `which` kind, for recovery: atomically,
    /// so one run goes to one claimer; it is then owned by this instance for `lease`. `None`
    /// when there is none. Paused runs are never orphans: they wait for a person.
    ///
    /// Runs in `skip` are left alone: those the caller's recovery pass lost to another owner or
    /// released for a later attempt. Claimed again in the same pass, a run would be taken back
    /// from an owner still at work on it, or retried at once, and the pass would never end.
    fn claim_orphan<'a>(
        &'a self,
        which: Orphans,
        lease: Duration,
        skip: &'a [RunId],
    ) -> StoreFuture<'a, Option<Orphan>>;
}

/// A store for everything that must outlive a process: runs (with their paused turns and
/// compensation records), chat memory, the used nonces of sealed tokens, and tasks. Every type
/// that is all four is one (the SQLite and PostgreSQL stores are).
pub trait DurableStore: RunStore + ChatMemory + ReplayGuard + TaskStore {}

impl<T> DurableStore for T where T: RunStore + ChatMemory + ReplayGuard + TaskStore + ?Sized {}

/// Encodes the paused turn of `run` for a store, sealed when the store has a seal.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn encode_paused(
    paused: &PausedTurn,
    row_seal: Option<&RowSeal>,
    run: &str,
) -> Result<String, StoreError> {
    let text = serde_json::to_string(paused)
        .map_err(|e| StoreError::Backend(format!("cannot encode the paused turn: {e}")))?;
    let pause = paused.pause().as_str();
    Ok(seal::seal(row_seal, seal::Row::Paused { run, pause }, text))
}

/// Decodes the paused turn of `run` a store kept waiting at `pause`, once its seal is checked
/// and the turn found to be of that pause.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn decode_paused(
    stored: &str,
    row_seal: Option<&RowSeal>,
    run: &str,
    pause: &str,
) -> Result<PausedTurn, StoreError> {
    let text = seal::open(row_seal, seal::Row::Paused { run, pause }, stored)?;
    let turn: PausedTurn = serde_json::from_str(text)
        .map_err(|e| StoreError::Backend(format!("the stored paused turn is unreadable: {e}")))?;
    if turn.pause().as_str() != pause {
        return Err(StoreError::Tampered {
            run: run.to_owned(),
            what: "paused turn",
            reason: "it is of another pause than the run waits at",
        });
    }
    Ok(turn)
}

/// The refusal of a paused row whose pause does not wait in the store's record of waiting
/// pauses: it was taken already and the row put back, or never paused by the store.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn not_waiting(run: &str) -> StoreError {
    StoreError::Tampered {
        run: run.to_owned(),
        what: "paused turn",
        reason: "its pause does not wait in this store (it was taken already and the row put \
                 back, or the store never paused it)",
    }
}

/// Encodes a compensation record entry of `run` for a store, sealed when the store has a seal.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn encode_entry(
    entry: &RecordEntry,
    row_seal: Option<&RowSeal>,
    run: &str,
) -> Result<String, StoreError> {
    let text = serde_json::to_string(entry)
        .map_err(|e| StoreError::Backend(format!("cannot encode the entry: {e}")))?;
    let key = &entry.idempotency_key;
    Ok(seal::seal(row_seal, seal::Row::Entry { run, key }, text))
}

/// Decodes the entry with idempotency key `key` of `run` a store kept, once its seal is
/// checked.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn decode_entry(
    stored: &str,
    row_seal: Option<&RowSeal>,
    run: &str,
    key: &str,
) -> Result<RecordEntry, StoreError> {
    let text = seal::open(row_seal, seal::Row::Entry { run, key }, stored)?;
    serde_json::from_str(text)
        .map_err(|e| StoreError::Backend(format!("a stored entry is unreadable: {e}")))
}
