//! τ²-bench's airline domain: its database and its 14 tools.

mod db;
mod tools;
mod touched;

pub(crate) use db::FlightDb;
pub(crate) use touched::Touched;

use crate::store::Store;

/// The airline: its database, and the pre-images of the writes made to it.
#[derive(Debug)]
pub(crate) struct Airline {
    store: Store<FlightDb, Touched>,
}

impl Airline {
    /// An airline over `store`: its database, in memory or logged.
    pub(crate) fn new(store: Store<FlightDb, Touched>) -> Self {
        Self { store }
    }

    /// The database and its journal.
    pub(crate) fn store(&self) -> &Store<FlightDb, Touched> {
        &self.store
    }
}
