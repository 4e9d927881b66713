//! The PostgreSQL store as the sealed tokens' replay guard: every replica sharing the database
//! refuses a token used in any of them.

use super::{backend, PostgresStore};
use crate::store::{ReplayGuard, StoreFuture};

impl ReplayGuard for PostgresStore {
    fn consume<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let expires_at = i64::try_from(expires_at).unwrap_or(i64::MAX);
            let connection = self.connection().await.map_err(backend)?;
            // Nonces of expired tokens are forgotten: those tokens are refused for expiry.
            connection
                .execute(
                    "DELETE FROM tool_sdk_used_tokens
                     WHERE expires_at <= extract(epoch from now())::bigint",
                    &[],
                )
                .await
                .map_err(backend)?;
            let inserted = connection
                .execute(
                    "INSERT INTO tool_sdk_used_tokens (nonce, expires_at) VALUES ($1, $2)
                     ON CONFLICT (nonce) DO NOTHING",
                    &[&nonce, &expires_at],
                )
                .await
                .map_err(backend)?;
            Ok(inserted == 1)
        })
    }
}
