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
    /// A store over `store`: its database, in memory or logged.
    pub(crate) fn new(store: Store<RetailDb, Touched>) -> Self {
        Self { store }
    }

    /// The database and its journal.
    pub(crate) fn store(&self) -> &Store<RetailDb, Touched> {
        &self.store
    }
}
