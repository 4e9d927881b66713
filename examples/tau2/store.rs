//! A domain's database behind one lock, with the journal of its writes' pre-images: reads see
//! it, writes change it and keep what they touched, compensations put that back.

use std::sync::{Mutex, MutexGuard};

use serde::Serialize;
use serde_json::Value;

use crate::undo::Journal;

/// The records one write touched, as they were, for a database `Db`.
pub(crate) trait PreImage<Db>: Default {
    /// Puts every kept record back into `db`.
    fn restore(&self, db: &mut Db);
}

/// A database and the pre-images of the writes made to it.
#[derive(Debug)]
pub(crate) struct Store<Db, P> {
    state: Mutex<State<Db, P>>,
}

#[derive(Debug)]
struct State<Db, P> {
    db: Db,
    journal: Journal<P>,
}

impl<Db: Serialize + PartialEq, P: PreImage<Db>> Store<Db, P> {
    /// A store over `db`.
    pub(crate) fn new(db: Db) -> Self {
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
    pub(crate) fn holds(&self, db: &Db) -> Result<bool, String> {
        Ok(self.lock()?.db == *db)
    }

    /// The database as it is now.
    pub(crate) fn snapshot(&self) -> Result<Db, String>
    where
        Db: Clone,
    {
        Ok(self.lock()?.db.clone())
    }

    fn lock(&self) -> Result<MutexGuard<'_, State<Db, P>>, String> {
        self.state
            .lock()
            .map_err(|_| "the database is unavailable".to_owned())
    }

    /// Runs a read.
    pub(crate) fn read<T>(&self, read: impl FnOnce(&Db) -> Result<T, String>) -> Result<T, String> {
        read(&self.lock()?.db)
    }

    /// Runs a write of `tool`; when it succeeds, keeps the pre-image of the records it touched
    /// for its compensation. A write that fails keeps what it changed before failing, as τ²'s
    /// does (the few that can fail after a change say so).
    pub(crate) fn write<T: Serialize>(
        &self,
        tool: &'static str,
        write: impl FnOnce(&mut Db, &mut P) -> Result<T, String>,
    ) -> Result<T, String> {
        let mut state = self.lock()?;
        let mut touched = P::default();
        let output = write(&mut state.db, &mut touched)?;
        state.journal.record(tool, &output, touched)?;
        Ok(output)
    }

    /// The compensation of every write: puts back the records the write of `tool` that
    /// returned `output` touched.
    pub(crate) fn restore(&self, tool: &str, output: &Value) -> Result<(), String> {
        let key = tool_sdk::compensate::idempotency_key();
        let mut state = self.lock()?;
        let State { db, journal } = &mut *state;
        if let Some(before) = journal.take(tool, output, key)? {
            before.restore(db);
        }
        Ok(())
    }
}
