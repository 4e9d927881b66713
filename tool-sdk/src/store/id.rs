//! The opaque ids of runs and paused turns, and the random tokens they are made of.

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::store::StoreError;

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

/// The opaque id of a run; a paused run is resumed by it. The loop's runs get a random
/// per-process prefix and a counter, unique across processes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A fresh random id.
    pub fn random() -> Result<Self, StoreError> {
        random_token().map(Self)
    }

    /// An id received back, e.g. from the person who decides on a paused run.
    pub fn from_string(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A random owner token for a store instance.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn owner_token() -> Result<String, StoreError> {
    random_token()
}
