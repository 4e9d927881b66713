//! The id of a run, of each of its pauses, and the random tokens ids and owners are made of.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::store::StoreError;

/// 128 random bits as URL-safe text: ids, the per-process prefix of run ids, store owners.
pub(crate) fn random_token() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Backend(format!("no randomness: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The opaque id of a run, and of its paused turn: what a resume names it by. The loop's runs
/// get a random per-process prefix and a counter, unique across processes; a turn the gate
/// pauses alone gets 128 random bits ([`RunId::new`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A fresh id that cannot be guessed: 128 bits of SHA-256 over a secret drawn once per
    /// process from the system's randomness and a counter (one system call per process, not
    /// per id), or, only if the system has no randomness to give, a process-unique id. A
    /// paused turn the gate keeps gets one, since whoever knows the id may try decisions on
    /// it.
    pub fn new() -> Self {
        static SECRET: OnceLock<Option<[u8; 32]>> = OnceLock::new();
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let secret = SECRET.get_or_init(|| {
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret).ok().map(|()| secret)
        });
        let Some(secret) = secret else {
            return Self::next();
        };
        let mut digest = Sha256::new();
        digest.update(secret);
        digest.update(NEXT.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        Self(URL_SAFE_NO_PAD.encode(&digest.finalize()[..16]))
    }

    /// A fresh id, unique across processes (so are the idempotency keys built on it), cheaply:
    /// a random prefix drawn once per process, then a counter — one system call per process,
    /// not per run. A process-local prefix only if the system has no randomness to give.
    pub(crate) fn next() -> Self {
        static PREFIX: OnceLock<String> = OnceLock::new();
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let prefix = PREFIX.get_or_init(|| match random_token() {
            Ok(token) => token,
            Err(_) => {
                let since_epoch = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                format!("p{}-{}", std::process::id(), since_epoch.as_nanos())
            }
        });
        Self(format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed)))
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

impl Default for RunId {
    /// A fresh id, as [`RunId::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The identity of one pause of a run: a run that pauses, goes on and pauses again has two, even
/// when both wait on the same call. Decisions name the pause they were made for
/// ([`ToolCallDecisions::pause`](crate::gate::ToolCallDecisions::pause)), and a resume takes a
/// run only while it waits at that very pause: decisions for one pause never apply to another,
/// whether they arrive late, twice, or racing another resume.
///
/// 128 unguessable bits, as a [`RunId::new`], so it also tells apart pauses of different runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PauseId(String);

impl PauseId {
    /// A fresh identity.
    pub(crate) fn new() -> Self {
        Self(RunId::new().0)
    }

    /// An identity received back, e.g. with a person's decisions.
    pub fn from_string(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The identity as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PauseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A random owner token for a store instance.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn owner_token() -> Result<String, StoreError> {
    random_token()
}
