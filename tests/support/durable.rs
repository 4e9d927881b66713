//! Stores for the durability tests: a fresh SQLite file, or a fresh schema of the PostgreSQL
//! server that `scripts/test.sh` starts (`TOOL_SDK_POSTGRES_URL`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use std::time::Duration;

use tool_sdk::store::{
    ChatMemory, Compensated, Orphan, Orphans, PauseId, PausedRun, PausedTurn, PostgresStore,
    RecordEntry, ReplayGuard, RowSeal, RunId, RunStore, SqliteStore, StoreError, StoreFuture,
};

use crate::booking::Timeline;

/// Which durable store a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file.
    Sqlite,
    /// A fresh schema on the test PostgreSQL server.
    Postgres,
}

/// A fresh, empty place for one test's store, with a directory for its other files.
#[derive(Debug)]
pub struct Place {
    /// The store the place is for.
    pub backend: Backend,
    /// `sqlite:PATH` or `postgres:CONFIG`, as the saga child takes it.
    pub spec: String,
    /// A directory of the test's own.
    pub dir: PathBuf,
}

impl Place {
    /// The SQLite path or PostgreSQL configuration, without the prefix.
    pub fn location(&self) -> &str {
        self.spec
            .split_once(':')
            .map(|(_, rest)| rest)
            .unwrap_or_default()
    }

    /// A new handle on the store here, as another process or replica opens it.
    pub async fn open(&self) -> Store {
        match self.backend {
            Backend::Sqlite => {
                Store::Sqlite(SqliteStore::open(self.location()).expect("open SQLite"))
            }
            Backend::Postgres => Store::Postgres(
                PostgresStore::connect(self.location())
                    .await
                    .expect("connect to PostgreSQL"),
            ),
        }
    }
}

impl Place {
    /// Runs `sql` on the store's database directly, as someone with access to it (and not to
    /// the application's key) could; returns how many rows it changed.
    pub async fn edit(&self, sql: &str) -> u64 {
        match self.backend {
            Backend::Sqlite => {
                let connection = rusqlite::Connection::open(self.location()).expect("open SQLite");
                connection.execute(sql, []).expect("edit the SQLite file") as u64
            }
            Backend::Postgres => {
                let (client, connection) =
                    tokio_postgres::connect(self.location(), tokio_postgres::NoTls)
                        .await
                        .expect("connect to PostgreSQL");
                let driver = tokio::spawn(connection);
                let changed = client.execute(sql, &[]).await.expect("edit the schema");
                drop(client);
                let _ = driver.await;
                changed
            }
        }
    }
}

/// One handle on a durable store, each handle its own owner (see [`Place::open`]).
#[derive(Debug, Clone)]
pub enum Store {
    /// A SQLite file.
    Sqlite(SqliteStore),
    /// A PostgreSQL schema.
    Postgres(PostgresStore),
}

impl Store {
    /// The handle, sealing the rows it writes and checking those it reads.
    pub fn sealed(self, seal: RowSeal) -> Self {
        match self {
            Store::Sqlite(store) => Store::Sqlite(store.with_row_seal(seal)),
            Store::Postgres(store) => Store::Postgres(store.with_row_seal(seal)),
        }
    }

    /// The handle as a loop's run store.
    pub fn run_store(self) -> Arc<dyn RunStore> {
        match self {
            Store::Sqlite(store) => Arc::new(store),
            Store::Postgres(store) => Arc::new(store),
        }
    }

    /// The handle as a chat memory.
    pub fn chat_memory(self) -> Arc<dyn ChatMemory> {
        match self {
            Store::Sqlite(store) => Arc::new(store),
            Store::Postgres(store) => Arc::new(store),
        }
    }

    /// The handle as tool search's vector store.
    pub fn vector_store(self) -> Arc<dyn tool_sdk::describe::search::VectorStore> {
        match self {
            Store::Sqlite(store) => Arc::new(store),
            Store::Postgres(store) => Arc::new(store),
        }
    }

    /// The handle as a sealer's replay guard.
    pub fn replay_guard(self) -> Arc<dyn ReplayGuard> {
        match self {
            Store::Sqlite(store) => Arc::new(store),
            Store::Postgres(store) => Arc::new(store),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The PostgreSQL server's configuration; the tests fail without it.
pub fn postgres_url() -> String {
    std::env::var("TOOL_SDK_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "TOOL_SDK_POSTGRES_URL is not set: these tests need the PostgreSQL server that \
             ./scripts/test.sh starts"
        )
    })
}

fn unique(test: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let clean: String = test
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!(
        "{clean}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A fresh place named after `test`.
pub async fn place(backend: Backend, test: &str) -> Place {
    let name = unique(test);
    let dir = std::env::temp_dir().join(format!("tool-sdk-{name}"));
    std::fs::create_dir_all(&dir).expect("create the test directory");
    let spec = match backend {
        Backend::Sqlite => format!("sqlite:{}", dir.join("store.db").display()),
        Backend::Postgres => {
            let url = postgres_url();
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .expect("connect to the test PostgreSQL server");
            let driver = tokio::spawn(connection);
            let schema = format!("t_{}", name.to_lowercase());
            client
                .batch_execute(&format!("CREATE SCHEMA {schema}"))
                .await
                .expect("create the test's schema");
            drop(client);
            let _ = driver.await;
            format!("postgres:{url} options=-csearch_path={schema}")
        }
    };
    Place { backend, spec, dir }
}

/// A store that logs each write to the timeline and can be told to refuse records.
pub struct Watched {
    /// The store written to.
    pub inner: Arc<dyn RunStore>,
    /// Where each record is logged, `recorded NAME`.
    pub timeline: Timeline,
    /// Whether records are refused (`disk full`).
    pub refuse_records: bool,
    /// How long `pause` waits after the run is paused before it returns.
    pub hold_after_pause: Duration,
}

impl std::fmt::Debug for Watched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watched")
            .field("refuse_records", &self.refuse_records)
            .field("hold_after_pause", &self.hold_after_pause)
            .finish_non_exhaustive()
    }
}

impl RunStore for Watched {
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        self.inner.begin(run, lease)
    }
    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        self.inner.renew(run, lease)
    }
    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()> {
        self.inner.release(run, after)
    }
    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if self.refuse_records {
                return Err(StoreError::Backend("disk full".into()));
            }
            self.inner.record(run, entry).await?;
            self.timeline
                .lock()
                .unwrap()
                .push(format!("recorded {}", entry.call.name));
            Ok(())
        })
    }
    fn compensated<'a>(
        &'a self,
        run: &'a RunId,
        key: &'a str,
        outcome: &'a Compensated,
    ) -> StoreFuture<'a, ()> {
        self.inner.compensated(run, key, outcome)
    }
    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedTurn) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.pause(run, paused).await?;
            tokio::time::sleep(self.hold_after_pause).await;
            Ok(())
        })
    }
    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedTurn> {
        self.inner.load_paused(run)
    }
    fn list_paused(&self, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        self.inner.list_paused(limit)
    }
    fn take_paused<'a>(
        &'a self,
        run: &'a RunId,
        pause: &'a PauseId,
        lease: Duration,
    ) -> StoreFuture<'a, PausedTurn> {
        self.inner.take_paused(run, pause, lease)
    }
    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()> {
        self.inner.finish(run)
    }
    fn claim_orphan<'a>(
        &'a self,
        which: Orphans,
        lease: Duration,
        skip: &'a [RunId],
    ) -> StoreFuture<'a, Option<Orphan>> {
        self.inner.claim_orphan(which, lease, skip)
    }
}

/// Tests `sqlite::SCENARIO` and `postgres::SCENARIO`, each with the test attribute given first,
/// for each `async fn SCENARIO(Backend)` named.
#[macro_export]
macro_rules! on_both_stores {
    (#[$test:meta] $($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[$test]
                async fn $scenario() {
                    super::$scenario($crate::durable::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[$test]
                async fn $scenario() {
                    super::$scenario($crate::durable::Backend::Postgres).await;
                }
            )*
        }
    };
}
