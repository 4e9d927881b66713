//! The database's durable log, in a SQLite file of the domain's own: what a process that
//! stops (is killed) leaves for the next one to recover from.
//!
//! The database itself stays in memory, loaded from `db.json`; the file holds, in order, every
//! change made to it since: each write with the pre-image and the post-image of the records it
//! touched, each undo of a write. Each change is one row, inserted in one transaction under
//! the store's lock, with the change in memory: a process killed at any moment leaves either
//! the change and its row, or neither (a change whose row cannot be written is taken back).
//! Opening the file again replays the rows over `db.json`: the same database, and the same
//! journal of pre-images, as the process that wrote them had.

use std::path::Path;

use rusqlite::{params, Connection};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One change, as a row holds it; `P` is a write's record of the records it touched.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum Event<P> {
    /// A write succeeded: its tool and output find it again, `before` undoes it, `after`
    /// redoes it.
    Wrote {
        tool: String,
        output: Value,
        before: P,
        after: P,
    },
    /// A write failed after changing the database (a few of τ²'s do): the change stays, and
    /// no compensation undoes it, as in τ².
    Changed { after: P },
    /// One compensation (or the undoing of writes no compensation named): the writes at
    /// `entries` (counting successful writes from 0) were undone, in that order, and the
    /// compensation keyed `key` claimed the write at `claimed`.
    Undone {
        entries: Vec<usize>,
        claimed: Option<(usize, String)>,
    },
}

/// The log's file.
#[derive(Debug)]
pub(crate) struct Log {
    connection: Connection,
}

impl Log {
    /// Opens the log at `path`, made empty if there is none.
    pub(crate) fn open(path: &Path) -> Result<Self, String> {
        let failed = |error: rusqlite::Error| format!("{}: {error}", path.display());
        let connection = Connection::open(path).map_err(failed)?;
        connection
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS changes (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    change TEXT NOT NULL
                )",
            )
            .map_err(failed)?;
        Ok(Self { connection })
    }

    /// Every change, oldest first.
    pub(crate) fn changes<P: DeserializeOwned>(&self) -> Result<Vec<Event<P>>, String> {
        let failed = |error: rusqlite::Error| format!("the database's log: {error}");
        let mut statement = self
            .connection
            .prepare("SELECT change FROM changes ORDER BY seq")
            .map_err(failed)?;
        let rows = statement
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(failed)?;
        rows.map(|row| {
            let text = row.map_err(failed)?;
            serde_json::from_str(&text).map_err(|error| format!("the database's log: {error}"))
        })
        .collect()
    }

    /// Appends `change`: durable once this returns.
    pub(crate) fn append<P: Serialize>(&self, change: &Event<P>) -> Result<(), String> {
        let text = serde_json::to_string(change).map_err(|error| error.to_string())?;
        self.connection
            .execute("INSERT INTO changes (change) VALUES (?1)", params![text])
            .map_err(|error| format!("the database's log: {error}"))?;
        Ok(())
    }
}
