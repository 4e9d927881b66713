//! The SQLite store as the sealed tokens' replay guard: every process sharing the file refuses
//! a token used in any of them.

use rusqlite::params;

use super::{backend, now_ms, SqliteStore};
use crate::store::{ReplayGuard, StoreFuture};

impl ReplayGuard for SqliteStore {
    fn consume<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool> {
        let nonce = nonce.to_owned();
        let expires_at = i64::try_from(expires_at).unwrap_or(i64::MAX);
        self.with(move |connection, _| {
            // Nonces of expired tokens are forgotten: those tokens are refused for expiry.
            connection
                .execute(
                    "DELETE FROM tool_sdk_used_tokens WHERE expires_at <= ?1",
                    [now_ms() / 1000],
                )
                .map_err(backend)?;
            let inserted = connection
                .execute(
                    "INSERT OR IGNORE INTO tool_sdk_used_tokens (nonce, expires_at)
                     VALUES (?1, ?2)",
                    params![nonce, expires_at],
                )
                .map_err(backend)?;
            Ok(inserted == 1)
        })
    }
}
