//! A store in one SQLite file: runs, paused runs and turns, and chat memory survive restarts.
//! Opening, the schema, and how operations reach the connection.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, TransactionBehavior};

mod memory;
mod replay;
mod runs;
mod tasks;
mod vectors;

use crate::store::migrations::SQLITE;
use crate::store::{owner_token, RowSeal, StoreError, StoreFuture};
#[cfg(doc)]
use crate::store::{ChatMemory, ReplayGuard, RunStore};

/// A store in one SQLite file (feature `sqlite`): a [`RunStore`], a [`ChatMemory`] and a
/// [`ReplayGuard`] that survive restarts of a single process.
///
/// Writes are synchronous (`synchronous = FULL`, write-ahead log): once a method's future is
/// ready, what it wrote survives a crash of the process or of the machine. Each operation runs
/// on tokio's blocking pool, so the file's latency never stalls other tasks. Several processes
/// may open one file (each is one owner), but SQLite serialises their writes: for replicas,
/// use PostgreSQL.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use tool_sdk::store::{Orphans, SqliteStore};
/// use tool_sdk::run::ToolLoop;
/// use tool_sdk::{ScriptedModel, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = std::env::temp_dir().join(format!("tool-sdk-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let store = Arc::new(SqliteStore::open(dir.join("agent.db"))?);
/// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()).with_store(store);
/// // At start-up: roll back what a crashed predecessor left half done.
/// let recovered = agent.recover(Orphans::All).await?;
/// assert!(recovered.is_empty());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
    row_seal: Option<RowSeal>,
}

#[derive(Debug)]
struct Inner {
    connection: Mutex<Connection>,
    owner: String,
}

pub(super) fn backend(error: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(error.to_string())
}

/// Unix milliseconds, the lease clock (one machine shares it).
pub(super) fn now_ms() -> i64 {
    ms_of(SystemTime::now())
}

/// `time` in Unix milliseconds (0 before the epoch, the largest after what fits).
pub(super) fn ms_of(time: SystemTime) -> i64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

pub(super) fn at(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or_default())
}

pub(super) fn lease_until(lease: Duration) -> i64 {
    now_ms().saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX))
}

pub(super) fn encode<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| backend(format!("cannot encode: {e}")))
}

pub(super) fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| backend(format!("stored data is unreadable: {e}")))
}

impl SqliteStore {
    /// Opens (creating if need be) the store in the file at `path`, bringing its schema up to
    /// date.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::with_connection(Connection::open(path).map_err(backend)?)
    }

    /// A store in memory, gone when dropped: for tests.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(backend)?)
    }

    fn with_connection(mut connection: Connection) -> Result<Self, StoreError> {
        // Another process may hold the write lock for a moment.
        connection
            .busy_timeout(Duration::from_secs(10))
            .map_err(backend)?;
        connection
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
            .map_err(backend)?;
        connection
            .pragma_update(None, "synchronous", "FULL")
            .map_err(backend)?;
        connection
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(backend)?;
        migrate(&mut connection)?;
        Ok(Self {
            inner: Arc::new(Inner {
                connection: Mutex::new(connection),
                owner: owner_token()?,
            }),
            row_seal: None,
        })
    }

    /// Seals each paused turn and compensation record entry this store writes, and refuses on
    /// load one whose seal fails ([`StoreError::Tampered`]): a row edited in the file runs
    /// nothing. Every process opening the file needs the same seal, from the first run on.
    ///
    /// # Examples
    ///
    /// ```
    /// use tool_sdk::gate::Sealer;
    /// use tool_sdk::store::SqliteStore;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sealer = Sealer::new(&[7u8; 32])?; // the application's key, from its secrets
    /// let store = SqliteStore::open_in_memory()?.with_row_seal(sealer.row_seal());
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_row_seal(mut self, seal: RowSeal) -> Self {
        self.row_seal = Some(seal);
        self
    }

    /// The row seal, for an operation to take along.
    pub(super) fn row_seal(&self) -> Option<RowSeal> {
        self.row_seal.clone()
    }

    /// Runs `op` on the connection, on the blocking pool when inside a tokio runtime.
    pub(super) fn with<T, F>(&self, op: F) -> StoreFuture<'_, T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &str) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        let work = move || {
            let mut connection = inner
                .connection
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            op(&mut connection, &inner.owner)
        };
        Box::pin(async move {
            match tokio::runtime::Handle::try_current() {
                Ok(handle) => handle
                    .spawn_blocking(work)
                    .await
                    .map_err(|e| backend(format!("the store's worker failed: {e}")))?,
                Err(_) => work(),
            }
        })
    }
}

fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    connection
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS tool_sdk_migrations (
                version INTEGER PRIMARY KEY,
                applied_at INTEGER NOT NULL
            )",
        )
        .map_err(backend)?;
    for migration in SQLITE {
        // Immediate: two processes opening a new file at once apply each step once.
        let tx = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend)?;
        let applied: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM tool_sdk_migrations WHERE version = ?1)",
                [migration.version],
                |row| row.get(0),
            )
            .map_err(backend)?;
        if !applied {
            tx.execute_batch(migration.sql).map_err(backend)?;
            tx.execute(
                "INSERT INTO tool_sdk_migrations (version, applied_at) VALUES (?1, ?2)",
                params![migration.version, now_ms()],
            )
            .map_err(backend)?;
        }
        tx.commit().map_err(backend)?;
    }
    Ok(())
}
