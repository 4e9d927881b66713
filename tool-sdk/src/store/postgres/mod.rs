//! A store on a PostgreSQL server, shared by replicas: connecting, and the schema.

mod memory;
mod replay;
mod runs;
mod tasks;
mod vectors;

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime,
};
use tokio_postgres::config::SslMode;
use tokio_postgres::NoTls;

use crate::store::migrations::POSTGRES;
use crate::store::{owner_token, RowSeal, StoreError};
#[cfg(doc)]
use crate::store::{ChatMemory, ReplayGuard, RunStore};

/// Connections [`PostgresStore::connect`] keeps open at most.
const DEFAULT_MAX_CONNECTIONS: usize = 16;
/// How long opening a connection may take before the operation fails.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an operation waits for a free connection before it fails.
const WAIT_TIMEOUT: Duration = Duration::from_secs(30);

/// A store on a PostgreSQL server (feature `postgres`): a [`RunStore`], a [`ChatMemory`] and a
/// [`ReplayGuard`] shared by every replica that connects to the same database.
///
/// Each operation is one statement, so it is atomic on its own; row locks order the ones that
/// race (two replicas resuming one paused run: one gets it; two recovering at once: each run
/// goes to one of them). Leases run on the server's clock, so replicas' clocks need not agree.
///
/// Operations run on a pool of connections, so concurrent runs do not wait for each other's
/// statements. A connection the server closed (a restart, a failover, an idle timeout) is
/// dropped and replaced: the operation that was using it fails with [`StoreError::Backend`],
/// later ones open a new connection. A clone shares the pool and is the same owner.
///
/// [`connect`](Self::connect) opens connections without TLS, for a server on a private
/// network or loopback. For TLS or other pool settings, build a [`deadpool_postgres::Pool`]
/// (re-exported as `tool_sdk::store::deadpool_postgres`) and hand it to
/// [`from_pool`](Self::from_pool).
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use tool_sdk::store::{Orphans, PostgresStore};
/// use tool_sdk::run::ToolLoop;
/// use tool_sdk::{ScriptedModel, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = Arc::new(PostgresStore::connect("host=127.0.0.1 user=agent dbname=agent").await?);
/// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()).with_store(store);
/// // On every replica, now and then: roll back runs whose replica stopped renewing them.
/// agent.recover(Orphans::Expired).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: Pool,
    owner: Arc<str>,
    row_seal: Option<RowSeal>,
}

pub(super) fn backend(error: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(error.to_string())
}

impl PostgresStore {
    /// Connects with a libpq-style configuration (`host=... user=... dbname=...` or a
    /// `postgresql://` URL), without TLS, on a pool of up to 16 connections, and brings the
    /// schema up to date. Needs a tokio runtime: connections are driven by spawned tasks.
    ///
    /// Fails with [`StoreError::Backend`] when the configuration does not parse, requires TLS
    /// (`sslmode=require`; see [`from_pool`](Self::from_pool)), or the server cannot be
    /// reached.
    pub async fn connect(config: &str) -> Result<Self, StoreError> {
        let config: tokio_postgres::Config = config
            .parse()
            .map_err(|e| backend(format!("invalid PostgreSQL configuration: {e}")))?;
        // Said here rather than as a failed handshake on the first connection.
        if config.get_ssl_mode() == SslMode::Require {
            return Err(backend(
                "the configuration requires TLS (sslmode=require), which `connect` does not \
                 offer: build a pool with a TLS connector and pass it to \
                 `PostgresStore::from_pool`",
            ));
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            // A closed connection is found out on checkout, without a round trip.
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(DEFAULT_MAX_CONNECTIONS)
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(WAIT_TIMEOUT))
            .build()
            .map_err(backend)?;
        Self::from_pool(pool).await
    }

    /// Uses a pool the caller built (for TLS, its size or its timeouts) and brings the schema
    /// up to date.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tool_sdk::store::deadpool_postgres::{Manager, Pool, tokio_postgres};
    /// use tool_sdk::store::PostgresStore;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let config: tokio_postgres::Config = "host=127.0.0.1 user=agent dbname=agent".parse()?;
    /// let manager = Manager::new(config, tokio_postgres::NoTls);
    /// let pool = Pool::builder(manager).max_size(4).build()?;
    /// let store = PostgresStore::from_pool(pool).await?;
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn from_pool(pool: Pool) -> Result<Self, StoreError> {
        let mut client = pool.get().await.map_err(backend)?;
        migrate(&mut client).await?;
        Ok(Self {
            pool,
            owner: owner_token()?.into(),
            row_seal: None,
        })
    }

    /// Seals each paused turn and compensation record entry this store writes, and refuses on
    /// load one whose seal fails ([`StoreError::Tampered`]): a row edited in the database runs
    /// nothing. Every replica needs the same seal, from the first run on.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tool_sdk::gate::Sealer;
    /// use tool_sdk::store::PostgresStore;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sealer = Sealer::new(&[7u8; 32])?; // the application's key, from its secrets
    /// let store = PostgresStore::connect("host=127.0.0.1 user=agent dbname=agent")
    ///     .await?
    ///     .with_row_seal(sealer.row_seal());
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_row_seal(mut self, seal: RowSeal) -> Self {
        self.row_seal = Some(seal);
        self
    }

    /// A connection of the pool, opened if none is free.
    pub(super) async fn connection(&self) -> Result<Object, PoolError> {
        self.pool.get().await
    }
}

async fn migrate(client: &mut Object) -> Result<(), StoreError> {
    let tx = client.transaction().await.map_err(backend)?;
    // Replicas starting together apply each step once: one holds this lock, the others wait
    // and then find the step applied.
    tx.execute("SELECT pg_advisory_xact_lock(7300100001)", &[])
        .await
        .map_err(backend)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS tool_sdk_migrations (
            version BIGINT PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )",
    )
    .await
    .map_err(backend)?;
    for migration in POSTGRES {
        let applied = tx
            .query_opt(
                "SELECT 1 FROM tool_sdk_migrations WHERE version = $1",
                &[&migration.version],
            )
            .await
            .map_err(backend)?
            .is_some();
        if !applied {
            tx.batch_execute(migration.sql).await.map_err(backend)?;
            tx.execute(
                "INSERT INTO tool_sdk_migrations (version) VALUES ($1)",
                &[&migration.version],
            )
            .await
            .map_err(backend)?;
        }
    }
    tx.commit().await.map_err(backend)
}
