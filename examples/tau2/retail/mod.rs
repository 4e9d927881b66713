//! τ²-bench's retail domain: its database and its 15 tools.

mod db;
mod tools;
mod touched;

pub(crate) use db::RetailDb;
pub(crate) use touched::Touched;

use crate::store::Store;

/// The store: its database, and the pre-images of the writes made to it.
#[derive(Debug)]
pub(crate) struct Retail {
    store: Store<RetailDb, Touched>,
}

impl Retail {
    /// A store over `db`.
    pub(crate) fn new(db: RetailDb) -> Self {
        Self {
            store: Store::new(db),
        }
    }

    /// The database and its journal.
    pub(crate) fn store(&self) -> &Store<RetailDb, Touched> {
        &self.store
    }
}
