//! Keeping paused replies server-side, under an opaque id, each usable once.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::gate::PausedTurn;

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// 128 random bits as URL-safe text: the ids of stored turns and runs, and store owners.
pub(crate) fn random_token() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Backend(format!("no randomness: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The opaque, random id of a stored paused turn (128 bits).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TurnId(String);

impl TurnId {
    /// A fresh random id.
    pub fn random() -> Result<Self, StoreError> {
        random_token().map(Self)
    }

    /// An id received back from a client.
    pub fn from_string(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No paused turn has this id (never stored, or used already).
    #[error("no paused turn `{0}`: unknown, or used already")]
    NotFound(TurnId),
    /// No run with this id is in the state the operation needs (never paused, resumed by
    /// another already, or finished).
    #[error("no paused run `{0}`: unknown, resumed already, or finished")]
    UnknownRun(String),
    /// Another owner took the run over (this owner's lease ran out); this owner must stop.
    #[error("the run `{0}` is no longer owned here: its lease ran out and it was taken over")]
    Lost(String),
    /// The storage itself failed.
    #[error("the store failed: {0}")]
    Backend(String),
}

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
                .ok_or_else(|| StoreError::NotFound(id.clone()))
        })
    }

    fn take<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            self.turns()
                .remove(id)
                .ok_or_else(|| StoreError::NotFound(id.clone()))
        })
    }
}
