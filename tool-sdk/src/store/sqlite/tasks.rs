//! The SQLite store's tasks: every process sharing the file sees them, and they survive a
//! restart.

use std::time::{Duration, SystemTime};

use rusqlite::{params, OptionalExtension};

use super::{at, backend, lease_until, now_ms, SqliteStore};
use crate::store::{decode_state, encode_end, StoreFuture, StoredTask, TaskEnd, TaskStore};

impl TaskStore for SqliteStore {
    fn create_task<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'a, SystemTime> {
        let id = id.to_owned();
        self.with(move |connection, _| {
            let now = now_ms();
            // Tasks past their time to live are forgotten as new ones come.
            connection
                .execute("DELETE FROM tool_sdk_tasks WHERE expires_at <= ?1", [now])
                .map_err(backend)?;
            connection
                .execute(
                    "INSERT INTO tool_sdk_tasks
                         (id, state, lease_until, created_at, updated_at, expires_at)
                     VALUES (?1, 'working', ?2, ?3, ?3, ?4)",
                    params![id, lease_until(lease), now, lease_until(ttl)],
                )
                .map_err(backend)?;
            Ok(at(now))
        })
    }

    fn renew_task<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, bool> {
        let id = id.to_owned();
        let status_message = status_message.map(str::to_owned);
        self.with(move |connection, _| {
            let cancel_requested = connection
                .query_row(
                    "UPDATE tool_sdk_tasks
                     SET lease_until = ?2,
                         updated_at = CASE WHEN ?3 IS NOT NULL
                                            AND ?3 IS NOT status_message
                                      THEN ?4 ELSE updated_at END,
                         status_message = COALESCE(?3, status_message)
                     WHERE id = ?1 AND state = 'working' AND lease_until > ?4
                     RETURNING cancel_requested",
                    params![id, lease_until(lease), status_message, now_ms()],
                    |row| row.get::<_, bool>(0),
                )
                .optional()
                .map_err(backend)?;
            // No row: the task ended, or its lease ran out; either way its owner stops.
            Ok(cancel_requested.unwrap_or(true))
        })
    }

    fn end_task<'a>(
        &'a self,
        id: &'a str,
        end: &'a TaskEnd,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, ()> {
        let id = id.to_owned();
        let (state, outcome) = encode_end(end);
        let status_message = status_message.map(str::to_owned);
        self.with(move |connection, _| {
            connection
                .execute(
                    "UPDATE tool_sdk_tasks
                     SET state = ?2, outcome = ?3, updated_at = ?4,
                         status_message = COALESCE(?5, status_message)
                     WHERE id = ?1 AND state = 'working' AND lease_until > ?4",
                    params![id, state, outcome, now_ms(), status_message],
                )
                .map_err(backend)?;
            Ok(())
        })
    }

    fn request_task_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let id = id.to_owned();
        self.with(move |connection, _| {
            let known = connection
                .execute(
                    "UPDATE tool_sdk_tasks SET cancel_requested = 1
                     WHERE id = ?1 AND expires_at > ?2",
                    params![id, now_ms()],
                )
                .map_err(backend)?;
            Ok(known == 1)
        })
    }

    fn load_task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>> {
        let id = id.to_owned();
        self.with(move |connection, _| {
            let now = now_ms();
            let row = connection
                .query_row(
                    "SELECT state, outcome, status_message, cancel_requested,
                            lease_until <= ?2, created_at, updated_at
                     FROM tool_sdk_tasks WHERE id = ?1 AND expires_at > ?2",
                    params![id, now],
                    |row| {
                        Ok((
                            row.get::<_, String>(0)?,
                            row.get::<_, Option<String>>(1)?,
                            row.get::<_, Option<String>>(2)?,
                            row.get::<_, bool>(3)?,
                            row.get::<_, bool>(4)?,
                            row.get::<_, i64>(5)?,
                            row.get::<_, i64>(6)?,
                        ))
                    },
                )
                .optional()
                .map_err(backend)?;
            row.map(
                |(state, outcome, message, cancel, expired, created, updated)| {
                    let state = decode_state(&state, outcome.as_deref(), cancel, expired)?;
                    Ok(StoredTask::new(state, at(created), at(updated))
                        .with_status_message(message))
                },
            )
            .transpose()
        })
    }
}
