//! Where a loop records its runs: a run store when it has one (what outlives the process), else
//! its own in-memory store for the runs it pauses; how long a run stays owned; how long a
//! compensating action may take.

use std::sync::Arc;
use std::time::Duration;

use crate::store::{InMemoryRunStore, RunStore, DEFAULT_LEASE};

pub(crate) struct Records {
    pub(crate) store: Option<Arc<dyn RunStore>>,
    pub(crate) lease: Duration,
    pub(crate) compensation_timeout: Duration,
    /// Without a store, where the runs this loop paused wait, by id: what a resume runs is the
    /// copy kept here, never the value handed back, and each is taken once.
    pub(crate) parked: InMemoryRunStore,
}

impl Default for Records {
    fn default() -> Self {
        Self {
            store: None,
            lease: DEFAULT_LEASE,
            compensation_timeout: crate::compensate::DEFAULT_COMPENSATION_TIMEOUT,
            parked: InMemoryRunStore::new(),
        }
    }
}

impl Records {
    /// Where the runs are kept: the store, or without one the loop's own.
    pub(crate) fn run_store(&self) -> &dyn RunStore {
        match &self.store {
            Some(store) => &**store,
            None => &self.parked,
        }
    }
}
