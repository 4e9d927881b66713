//! Keeping paused replies server-side, under an opaque id, each usable once.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::store::{PausedTurn, StoreError, StoreFuture, TurnId};

/// Where paused replies wait server-side. `take` must be atomic: of two concurrent takes of one
/// id, exactly one gets the turn.
pub trait PausedTurnStore: Send + Sync {
    /// Stores `turn` under a fresh random id.
    fn save(&self, turn: PausedTurn) -> StoreFuture<'_, TurnId>;

    /// Reads the turn without using it up.
    fn load<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn>;

    /// Removes the turn, using it up; [`StoreError::NotFound`] when it is gone already.
    fn take<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn>;
}

/// A [`PausedTurnStore`] in this process's memory.
#[derive(Debug, Default)]
pub struct InMemoryPausedTurnStore {
    turns: Mutex<HashMap<TurnId, PausedTurn>>,
}

impl InMemoryPausedTurnStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn turns(&self) -> std::sync::MutexGuard<'_, HashMap<TurnId, PausedTurn>> {
        self.turns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl PausedTurnStore for InMemoryPausedTurnStore {
    fn save(&self, turn: PausedTurn) -> StoreFuture<'_, TurnId> {
        Box::pin(async move {
            let id = TurnId::random()?;
            self.turns().insert(id.clone(), turn);
            Ok(id)
        })
    }

    fn load<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            self.turns()
                .get(id)
                .cloned()
                .ok_or_else(|| StoreError::NotFound(id.to_string()))
        })
    }

    fn take<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            self.turns()
                .remove(id)
                .ok_or_else(|| StoreError::NotFound(id.to_string()))
        })
    }
}
