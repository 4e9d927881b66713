//! The PostgreSQL store's tasks: every replica sees them, cancels them and reads their results,
//! on the server's clock.

use std::time::{Duration, SystemTime};

use super::{backend, PostgresStore};
use crate::store::{decode_state, encode_end, StoreFuture, StoredTask, TaskEnd, TaskStore};

/// A duration in milliseconds, at most a century: PostgreSQL's intervals end near 178
/// million years, and a task kept "forever" is kept for as long.
fn millis(duration: Duration) -> i64 {
    const CENTURY_MS: i64 = 100 * 365 * 24 * 3600 * 1000;
    i64::try_from(duration.as_millis()).map_or(CENTURY_MS, |ms| ms.min(CENTURY_MS))
}

impl TaskStore for PostgresStore {
    fn create_task<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'a, SystemTime> {
        Box::pin(async move {
            let connection = self.connection().await.map_err(backend)?;
            // Tasks past their time to live are forgotten as new ones come.
            connection
                .execute("DELETE FROM tool_sdk_tasks WHERE expires_at <= now()", &[])
                .await
                .map_err(backend)?;
            let row = connection
                .query_one(
                    "INSERT INTO tool_sdk_tasks
                         (id, state, lease_until, created_at, updated_at, expires_at)
                     VALUES ($1, 'working', now() + $2::bigint * interval '1 millisecond',
                             now(), now(), now() + $3::bigint * interval '1 millisecond')
                     RETURNING created_at",
                    &[&id, &millis(lease), &millis(ttl)],
                )
                .await
                .map_err(backend)?;
            row.try_get::<_, SystemTime>(0).map_err(backend)
        })
    }

    fn renew_task<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let row = self
                .connection()
                .await
                .map_err(backend)?
                .query_opt(
                    "UPDATE tool_sdk_tasks
                     SET lease_until = now() + $2::bigint * interval '1 millisecond',
                         updated_at = CASE WHEN $3::text IS NOT NULL
                                            AND $3::text IS DISTINCT FROM status_message
                                      THEN now() ELSE updated_at END,
                         status_message = COALESCE($3::text, status_message)
                     WHERE id = $1 AND state = 'working' AND lease_until > now()
                     RETURNING cancel_requested",
                    &[&id, &millis(lease), &status_message],
                )
                .await
                .map_err(backend)?;
            // No row: the task ended, or its lease ran out; either way its owner stops.
            match row {
                Some(row) => row.try_get::<_, bool>(0).map_err(backend),
                None => Ok(true),
            }
        })
    }

    fn end_task<'a>(
        &'a self,
        id: &'a str,
        end: &'a TaskEnd,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (state, outcome) = encode_end(end);
            self.connection()
                .await
                .map_err(backend)?
                .execute(
                    "UPDATE tool_sdk_tasks
                     SET state = $2, outcome = $3, updated_at = now(),
                         status_message = COALESCE($4::text, status_message)
                     WHERE id = $1 AND state = 'working' AND lease_until > now()",
                    &[&id, &state, &outcome, &status_message],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn request_task_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let known = self
                .connection()
                .await
                .map_err(backend)?
                .execute(
                    "UPDATE tool_sdk_tasks SET cancel_requested = TRUE
                     WHERE id = $1 AND expires_at > now()",
                    &[&id],
                )
                .await
                .map_err(backend)?;
            Ok(known == 1)
        })
    }

    fn load_task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>> {
        Box::pin(async move {
            let row = self
                .connection()
                .await
                .map_err(backend)?
                .query_opt(
                    "SELECT state, outcome, status_message, cancel_requested,
                            lease_until <= now(), created_at, updated_at
                     FROM tool_sdk_tasks WHERE id = $1 AND expires_at > now()",
                    &[&id],
                )
                .await
                .map_err(backend)?;
            let Some(row) = row else {
                return Ok(None);
            };
            let state = decode_state(
                row.try_get::<_, &str>(0).map_err(backend)?,
                row.try_get::<_, Option<&str>>(1).map_err(backend)?,
                row.try_get::<_, bool>(3).map_err(backend)?,
                row.try_get::<_, bool>(4).map_err(backend)?,
            )?;
            let created_at = row.try_get::<_, SystemTime>(5).map_err(backend)?;
            let updated_at = row.try_get::<_, SystemTime>(6).map_err(backend)?;
            let status_message = row.try_get::<_, Option<String>>(2).map_err(backend)?;
            Ok(Some(
                StoredTask::new(state, created_at, updated_at).with_status_message(status_message),
            ))
        })
    }
}
