//! Where an MCP server keeps its tasks, and for how long.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::store::{InMemoryTaskStore, TaskStore, DEFAULT_LEASE};

/// How an [`McpServer`](super::McpServer) keeps the tasks it serves (the calls of
/// [`long_running`](crate::define::ToolOptions::long_running) tools, to a client that takes
/// tasks): in this process's memory by default, or in a [`TaskStore`] (the SQLite or
/// PostgreSQL run store), where a task and its result survive a restart and every replica
/// sharing the store answers for it.
///
/// A task is kept for its time to live, counted from its creation (an hour by default). A task
/// still working a lease before that ends (half of it, for a time to live shorter than two
/// leases) is stopped and reported failed, its call dropped, so that the client can still read
/// why. While a task works, its server renews a lease on it in the store; a task whose server
/// stopped (a crash, a restart) is reported failed once its lease has run out (30 s by default),
/// and stays failed: a server that comes back late to it stops it.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use tool_sdk::mcp::{McpServer, McpTasks};
/// use tool_sdk::store::SqliteStore;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = Arc::new(SqliteStore::open_in_memory()?);
/// let server = McpServer::builder("reports", "1.0.0")
///     .with_tasks(McpTasks::stored_in(store).with_ttl(Duration::from_secs(24 * 3600)));
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpTasks {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) ttl: Duration,
    pub(super) lease: Duration,
}

/// How long a task and its result are kept unless the server is told otherwise.
const DEFAULT_TTL: Duration = Duration::from_secs(60 * 60);

impl McpTasks {
    /// Tasks in this process's memory: gone when it stops.
    pub fn in_memory() -> Self {
        Self::stored_in(Arc::new(InMemoryTaskStore::new()))
    }

    /// Tasks in `store`, where they outlive this process.
    pub fn stored_in(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            ttl: DEFAULT_TTL,
            lease: DEFAULT_LEASE,
        }
    }

    /// How long a task and its result are kept, counted from its creation.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How long a working task stays its server's without a renewal (renewed every third of
    /// it): how soon a task whose server stopped is reported failed.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }
}

impl McpTasks {
    /// How long a task may work: its time to live, less a lease to report it failed in.
    pub(super) fn work_time(&self) -> Duration {
        if self.ttl > self.lease * 2 {
            self.ttl - self.lease
        } else {
            self.ttl / 2
        }
    }
}

impl Default for McpTasks {
    fn default() -> Self {
        Self::in_memory()
    }
}

impl fmt::Debug for McpTasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTasks")
            .field("ttl", &self.ttl)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}
