//! A store on a PostgreSQL server, shared by replicas: connecting, and the schema.

mod memory;
mod runs;

use std::sync::Arc;

use tokio_postgres::{Client, NoTls};

use crate::durable::migrations::POSTGRES;
use crate::durable::{owner_token, StoreError};
#[cfg(doc)]
use crate::{durable::RunStore, gate::PausedTurnStore, ChatMemory};

/// A store on a PostgreSQL server (feature `postgres`): a [`RunStore`], a [`ChatMemory`] and a
/// [`PausedTurnStore`] shared by every replica that connects to the same database.
///
/// Each operation is one statement, so it is atomic on its own; row locks order the ones that
/// race (two replicas resuming one paused run: one gets it; two recovering at once: each run
/// goes to one of them). Leases run on the server's clock, so replicas' clocks need not agree.
/// One connection per store, without TLS (for a server on a private network or loopback);
/// when it breaks, operations fail with [`StoreError::Backend`] and a new store must connect.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use tool_sdk::durable::{Orphans, PostgresStore};
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
    client: Arc<Client>,
    owner: Arc<str>,
}

pub(super) fn backend(error: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(error.to_string())
}

impl PostgresStore {
    /// Connects with a libpq-style configuration (`host=... user=... dbname=...` or a
    /// `postgresql://` URL) and brings the schema up to date. Needs a tokio runtime: the
    /// connection is driven by a spawned task.
    pub async fn connect(config: &str) -> Result<Self, StoreError> {
        let (mut client, connection) = tokio_postgres::connect(config, NoTls)
            .await
            .map_err(backend)?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::error!(error = %error, "the PostgreSQL connection ended");
            }
        });
        migrate(&mut client).await?;
        Ok(Self {
            client: Arc::new(client),
            owner: owner_token()?.into(),
        })
    }
}

async fn migrate(client: &mut Client) -> Result<(), StoreError> {
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
