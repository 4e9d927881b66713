//! The schema of the durable stores, as numbered migrations kept in `migrations/`; a store
//! applies, in order and once each, those its database has not seen.

/// One step of a store's schema.
#[derive(Debug)]
pub(crate) struct Migration {
    /// Applied in increasing order; recorded once applied.
    pub(crate) version: i64,
    /// The SQL, run as one batch in one transaction.
    pub(crate) sql: &'static str,
}

/// The SQLite schema.
#[cfg(feature = "sqlite")]
pub(crate) const SQLITE: &[Migration] = &[
    Migration {
        version: 1,
        sql: include_str!("../../migrations/sqlite/0001_runs.sql"),
    },
    Migration {
        version: 2,
        sql: include_str!("../../migrations/sqlite/0002_used_tokens.sql"),
    },
    Migration {
        version: 3,
        sql: include_str!("../../migrations/sqlite/0003_finished_runs.sql"),
    },
    Migration {
        version: 4,
        sql: include_str!("../../migrations/sqlite/0004_one_paused_state.sql"),
    },
    Migration {
        version: 5,
        sql: include_str!("../../migrations/sqlite/0005_pause_identity.sql"),
    },
    Migration {
        version: 6,
        sql: include_str!("../../migrations/sqlite/0006_tasks.sql"),
    },
    Migration {
        version: 7,
        sql: include_str!("../../migrations/sqlite/0007_paused_at.sql"),
    },
    Migration {
        version: 8,
        sql: include_str!("../../migrations/sqlite/0008_waiting_pauses.sql"),
    },
    Migration {
        version: 9,
        sql: include_str!("../../migrations/sqlite/0009_tool_vectors.sql"),
    },
    Migration {
        version: 10,
        sql: include_str!("../../migrations/sqlite/0010_pause_deadline.sql"),
    },
    Migration {
        version: 11,
        sql: include_str!("../../migrations/sqlite/0011_decided_runs.sql"),
    },
];

/// The PostgreSQL schema.
#[cfg(feature = "postgres")]
pub(crate) const POSTGRES: &[Migration] = &[
    Migration {
        version: 1,
        sql: include_str!("../../migrations/postgres/0001_runs.sql"),
    },
    Migration {
        version: 2,
        sql: include_str!("../../migrations/postgres/0002_used_tokens.sql"),
    },
    Migration {
        version: 3,
        sql: include_str!("../../migrations/postgres/0003_finished_runs.sql"),
    },
    Migration {
        version: 4,
        sql: include_str!("../../migrations/postgres/0004_one_paused_state.sql"),
    },
    Migration {
        version: 5,
        sql: include_str!("../../migrations/postgres/0005_pause_identity.sql"),
    },
    Migration {
        version: 6,
        sql: include_str!("../../migrations/postgres/0006_tasks.sql"),
    },
    Migration {
        version: 7,
        sql: include_str!("../../migrations/postgres/0007_paused_at.sql"),
    },
    Migration {
        version: 8,
        sql: include_str!("../../migrations/postgres/0008_waiting_pauses.sql"),
    },
    Migration {
        version: 9,
        sql: include_str!("../../migrations/postgres/0009_tool_vectors.sql"),
    },
    Migration {
        version: 10,
        sql: include_str!("../../migrations/postgres/0010_pause_deadline.sql"),
    },
    Migration {
        version: 11,
        sql: include_str!("../../migrations/postgres/0011_decided_runs.sql"),
    },
];
