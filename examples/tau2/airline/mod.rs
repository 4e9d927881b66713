//! τ²-bench's airline domain: its database and its 14 tools.

mod db;
mod tools;
mod touched;

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;
use serde_json::Value;

pub(crate) use db::FlightDb;
use touched::Touched;

use crate::undo::Journal;

/// The airline: its database, and the pre-images of the writes made to it.
#[derive(Debug)]
pub(crate) struct Airline {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    db: FlightDb,
    journal: Journal<Touched>,
}

impl Airline {
    /// An airline over `db`.
    pub(crate) fn new(db: FlightDb) -> Self {
        Self {
            state: Mutex::new(State {
                db,
                journal: Journal::default(),
            }),
        }
    }

    /// τ²'s hash of the database as it is now.
    pub(crate) fn db_hash(&self) -> Result<String, String> {
        let state = self.lock()?;
        crate::db_hash::db_hash(&state.db).map_err(|error| error.to_string())
    }

    /// Whether the database is exactly `db`.
    pub(crate) fn holds(&self, db: &FlightDb) -> Result<bool, String> {
        Ok(self.lock()?.db == *db)
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>, String> {
        self.state
            .lock()
            .map_err(|_| "the database is unavailable".to_owned())
    }

    /// Runs a read.
    fn read<T>(&self, read: impl FnOnce(&FlightDb) -> Result<T, String>) -> Result<T, String> {
        read(&self.lock()?.db)
    }

    /// Runs a write of `tool`; when it succeeds, keeps the pre-image of the records it touched
    /// for its compensation. A write that fails keeps what it changed before failing, as τ²'s
    /// does (none of the airline's can fail after a change but a booking that names the same
    /// certificate twice).
    fn write<T: Serialize>(
        &self,
        tool: &'static str,
        write: impl FnOnce(&mut FlightDb, &mut Touched) -> Result<T, String>,
    ) -> Result<T, String> {
        let mut state = self.lock()?;
        let mut touched = Touched::default();
        let output = write(&mut state.db, &mut touched)?;
        state.journal.record(tool, &output, touched)?;
        Ok(output)
    }

    /// The compensation of every write: puts back the records the write of `tool` that
    /// returned `output` touched.
    fn restore(&self, tool: &str, output: &Value) -> Result<(), String> {
        let key = tool_sdk::compensate::idempotency_key();
        let mut state = self.lock()?;
        let State { db, journal } = &mut *state;
        if let Some(before) = journal.take(tool, output, key)? {
            before.restore(db);
        }
        Ok(())
    }
}

/// The airline's database, from `db.json` in `dir`.
pub(crate) fn load(dir: &Path) -> Result<FlightDb, String> {
    crate::data::read_json(&dir.join("db.json"))
}
