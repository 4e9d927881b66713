//! Replay guards: which sealed tokens were used, so each is used once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::store::StoreFuture;

/// Seconds since the Unix epoch (0 before it).
pub(crate) fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Remembers which tokens were used, so each is used once.
///
/// The SQLite and PostgreSQL stores are guards over their database
/// ([`SqliteStore`](crate::store::SqliteStore), `PostgresStore`): give every replica's
/// [`Sealer`](crate::gate::Sealer) the store they share, and a token used on one is refused on all.
pub trait ReplayGuard: Send + Sync {
    /// Marks `nonce` used until `expires_at` (unix seconds); `false` when it was used already.
    /// Must be atomic: of two concurrent calls with one nonce, in any processes sharing the
    /// guard, exactly one gets `true`.
    fn consume<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool>;
}

/// A [`ReplayGuard`] in this process's memory; forgets nonces once their tokens expire.
#[derive(Debug, Default)]
pub struct InMemoryReplayGuard {
    used: Mutex<HashMap<String, u64>>,
}

impl ReplayGuard for InMemoryReplayGuard {
    fn consume<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool> {
        let now = unix_seconds(SystemTime::now());
        let mut used = self
            .used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        used.retain(|_, expiry| *expiry > now);
        let fresh = !used.contains_key(nonce);
        if fresh {
            used.insert(nonce.to_owned(), expires_at);
        }
        Box::pin(std::future::ready(Ok(fresh)))
    }
}
