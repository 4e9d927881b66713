//! The SQLite [`RunStore`]: each operation one transaction, ownership checked in it.

use std::time::{Duration, SystemTime};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{at, backend, lease_until, ms_of, now_ms, SqliteStore};
use crate::store::{
    decode_entry, decode_paused, encode_entry, encode_paused, not_waiting, Compensated, DecidedRun,
    Orphan, Orphans, PauseId, PausedRun, PausedTurn, RecordEntry, RunId, RunStore, StoreError,
    StoreFuture, FINISHED_KEPT, TIMED_OUT_PREFIX,
};

/// How long who finished a run is kept, in the clock's milliseconds.
const FINISHED_KEPT_MS: i64 = FINISHED_KEPT.as_millis() as i64;

/// The ids of `runs` as a JSON array, which SQLite's `json_each` reads as a set.
fn json_ids(runs: &[RunId]) -> String {
    serde_json::Value::from(runs.iter().map(RunId::as_str).collect::<Vec<_>>()).to_string()
}

/// Fails with [`StoreError::Lost`] unless `run` is running and owned by `owner`.
fn ensure_owned(connection: &Connection, run: &str, owner: &str) -> Result<(), StoreError> {
    let owned = connection
        .query_row(
            "SELECT 1 FROM tool_sdk_runs WHERE id = ?1 AND phase = 'running' AND owner = ?2",
            params![run, owner],
            |_| Ok(()),
        )
        .optional()
        .map_err(backend)?;
    owned.ok_or_else(|| StoreError::Lost(run.to_owned()))
}

/// Why `run` is not paused (at the pause asked for): it is known, running or finished, so its
/// pause was decided; or it is unknown.
fn not_paused(connection: &Connection, run: String) -> Result<StoreError, StoreError> {
    let known = connection
        .query_row(
            "SELECT 1 FROM tool_sdk_runs WHERE id = ?1
             UNION ALL SELECT 1 FROM tool_sdk_finished_runs WHERE id = ?1
             LIMIT 1",
            [&run],
            |_| Ok(()),
        )
        .optional()
        .map_err(backend)?;
    Ok(match known {
        Some(()) => StoreError::AlreadyDecided(run),
        None => StoreError::UnknownRun(run),
    })
}

impl RunStore for SqliteStore {
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        self.with(move |connection, owner| {
            connection
                .execute(
                    "INSERT INTO tool_sdk_runs (id, phase, owner, lease_until)
                     VALUES (?1, 'running', ?2, ?3)",
                    params![run, owner, lease_until(lease)],
                )
                .map_err(backend)?;
            Ok(())
        })
    }

    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        self.with(move |connection, owner| {
            let renewed = connection
                .execute(
                    "UPDATE tool_sdk_runs SET lease_until = ?3
                     WHERE id = ?1 AND phase = 'running' AND owner = ?2",
                    params![run, owner, lease_until(lease)],
                )
                .map_err(backend)?;
            if renewed == 0 {
                return Err(StoreError::Lost(run));
            }
            Ok(())
        })
    }

    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        self.with(move |connection, owner| {
            let released = connection
                .execute(
                    "UPDATE tool_sdk_runs SET owner = NULL, lease_until = ?3
                     WHERE id = ?1 AND phase = 'running' AND owner = ?2",
                    params![run, owner, lease_until(after)],
                )
                .map_err(backend)?;
            if released == 0 {
                return Err(StoreError::Lost(run));
            }
            Ok(())
        })
    }

    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        let key = entry.idempotency_key.clone();
        let entry = encode_entry(entry, self.row_seal.as_ref(), &run);
        self.with(move |connection, owner| {
            let entry = entry?;
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            ensure_owned(&tx, &run, owner)?;
            tx.execute(
                "INSERT OR IGNORE INTO tool_sdk_run_entries (run_id, idempotency_key, entry)
                 VALUES (?1, ?2, ?3)",
                params![run, key, entry],
            )
            .map_err(backend)?;
            tx.commit().map_err(backend)
        })
    }

    fn compensated<'a>(
        &'a self,
        run: &'a RunId,
        idempotency_key: &'a str,
        outcome: &'a Compensated,
    ) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        let key = idempotency_key.to_owned();
        let outcome = outcome.to_column();
        self.with(move |connection, owner| {
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            ensure_owned(&tx, &run, owner)?;
            tx.execute(
                "UPDATE tool_sdk_run_entries SET compensated = ?3
                 WHERE run_id = ?1 AND idempotency_key = ?2",
                params![run, key, outcome],
            )
            .map_err(backend)?;
            tx.commit().map_err(backend)
        })
    }

    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedTurn) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        let pause = paused.pause().as_str().to_owned();
        let deadline = paused.deadline().map(ms_of);
        let paused = encode_paused(paused, self.row_seal.as_ref(), &run);
        self.with(move |connection, owner| {
            let paused = paused?;
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            let changed = tx
                .execute(
                    "UPDATE tool_sdk_runs
                     SET phase = 'paused', owner = NULL, lease_until = NULL, paused = ?3,
                         pause_id = ?4, paused_at = ?5, deadline = ?6
                     WHERE id = ?1 AND phase = 'running' AND owner = ?2",
                    params![run, owner, paused, pause, now_ms(), deadline],
                )
                .map_err(backend)?;
            if changed == 0 {
                return Err(StoreError::Lost(run));
            }
            tx.execute(
                "INSERT OR IGNORE INTO tool_sdk_waiting_pauses (run_id, pause_id) VALUES (?1, ?2)",
                params![run, pause],
            )
            .map_err(backend)?;
            tx.commit().map_err(backend)
        })
    }

    fn list_paused(&self, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        self.paused_where(
            "r.phase = 'paused' ORDER BY r.paused_at DESC, r.id DESC LIMIT ?1",
            limit,
            None,
        )
    }

    fn keep_decided<'a>(&'a self, decided: &'a DecidedRun) -> StoreFuture<'a, ()> {
        let row = decided.to_column().map(|record| {
            (
                decided.run.as_str().to_owned(),
                decided.pause.as_str().to_owned(),
                ms_of(decided.decided_at),
                record,
            )
        });
        self.with(move |connection, _| {
            let (run, pause, at, record) = row?;
            connection
                .execute(
                    "INSERT INTO tool_sdk_decided (run_id, pause_id, decided_at, record)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (run_id, pause_id)
                     DO UPDATE SET decided_at = excluded.decided_at, record = excluded.record",
                    params![run, pause, at, record],
                )
                .map_err(backend)?;
            Ok(())
        })
    }

    fn list_decided(&self, skip: usize, limit: usize) -> StoreFuture<'_, Vec<DecidedRun>> {
        self.with(move |connection, _| {
            let (skip, limit) = (
                i64::try_from(skip).unwrap_or(i64::MAX),
                i64::try_from(limit).unwrap_or(i64::MAX),
            );
            let mut statement = connection
                .prepare(
                    "SELECT run_id, record FROM tool_sdk_decided
                     ORDER BY decided_at DESC, run_id DESC LIMIT ?1 OFFSET ?2",
                )
                .map_err(backend)?;
            let rows = statement
                .query_map(params![limit, skip], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(backend)?;
            let mut listed = Vec::new();
            for row in rows {
                let (run, record) = row.map_err(backend)?;
                match DecidedRun::from_column(&record) {
                    Ok(decided) => listed.push(decided),
                    Err(error) => {
                        tracing::warn!(%run, %error, "a decided run is left out of the history")
                    }
                }
            }
            Ok(listed)
        })
    }

    fn list_overdue(&self, now: SystemTime, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        self.paused_where(
            "r.phase = 'paused' AND r.deadline IS NOT NULL AND r.deadline <= ?2
             ORDER BY r.deadline, r.id LIMIT ?1",
            limit,
            Some(ms_of(now)),
        )
    }

    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedTurn> {
        let run = run.as_str().to_owned();
        let seal = self.row_seal();
        self.with(move |connection, _| {
            let paused: Option<(String, String, bool)> = connection
                .query_row(
                    "SELECT r.paused, r.pause_id, EXISTS (
                         SELECT 1 FROM tool_sdk_waiting_pauses AS w
                         WHERE w.run_id = r.id AND w.pause_id = r.pause_id
                     )
                     FROM tool_sdk_runs AS r WHERE r.id = ?1 AND r.phase = 'paused'",
                    [&run],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()
                .map_err(backend)?;
            match paused {
                Some((_, _, false)) => Err(not_waiting(&run)),
                Some((paused, pause, true)) => decode_paused(&paused, seal.as_ref(), &run, &pause),
                None => Err(not_paused(connection, run)?),
            }
        })
    }

    fn take_paused<'a>(
        &'a self,
        run: &'a RunId,
        pause: &'a PauseId,
        lease: Duration,
    ) -> StoreFuture<'a, PausedTurn> {
        let run = run.as_str().to_owned();
        let pause = pause.as_str().to_owned();
        let seal = self.row_seal();
        self.with(move |connection, owner| {
            // One conditional statement checks the pause and takes it: of two takers, in any
            // processes, the second finds the run no longer waiting there.
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            let paused: Option<String> = tx
                .query_row(
                    "UPDATE tool_sdk_runs SET phase = 'running', owner = ?2, lease_until = ?3
                     WHERE id = ?1 AND phase = 'paused' AND pause_id = ?4
                     RETURNING paused",
                    params![run, owner, lease_until(lease), pause],
                    |row| row.get(0),
                )
                .optional()
                .map_err(backend)?;
            let Some(paused) = paused else {
                return Err(not_paused(&tx, run)?);
            };
            tx.execute(
                "UPDATE tool_sdk_runs SET paused = NULL, pause_id = '' WHERE id = ?1",
                [&run],
            )
            .map_err(backend)?;
            // What the take consumes is kept apart from the row: a row put back after this
            // take finds its pause no longer waiting.
            let waiting = tx
                .execute(
                    "DELETE FROM tool_sdk_waiting_pauses WHERE run_id = ?1 AND pause_id = ?2",
                    params![run, pause],
                )
                .map_err(backend)?;
            // A turn refused is not taken: the transaction is dropped, undone.
            if waiting == 0 {
                return Err(not_waiting(&run));
            }
            let paused = decode_paused(&paused, seal.as_ref(), &run, &pause)?;
            tx.commit().map_err(backend)?;
            Ok(paused)
        })
    }

    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()> {
        let run = run.as_str().to_owned();
        self.with(move |connection, owner| {
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            tx.execute(
                "DELETE FROM tool_sdk_finished_runs WHERE finished_at < ?1",
                [now_ms().saturating_sub(FINISHED_KEPT_MS)],
            )
            .map_err(backend)?;
            let deleted = tx
                .execute(
                    "DELETE FROM tool_sdk_runs WHERE id = ?1 AND owner = ?2",
                    params![run, owner],
                )
                .map_err(backend)?;
            if deleted == 1 {
                tx.execute(
                    "INSERT OR REPLACE INTO tool_sdk_finished_runs (id, owner, finished_at)
                     VALUES (?1, ?2, ?3)",
                    params![run, owner, now_ms()],
                )
                .map_err(backend)?;
            } else {
                let exists = tx
                    .query_row("SELECT 1 FROM tool_sdk_runs WHERE id = ?1", [&run], |_| {
                        Ok(())
                    })
                    .optional()
                    .map_err(backend)?;
                let finisher: Option<String> = tx
                    .query_row(
                        "SELECT owner FROM tool_sdk_finished_runs WHERE id = ?1",
                        [&run],
                        |row| row.get(0),
                    )
                    .optional()
                    .map_err(backend)?;
                // Still there under another owner, or finished by another: not ours to end.
                if exists.is_some() || finisher.is_some_and(|by| by != owner) {
                    return Err(StoreError::Lost(run));
                }
            }
            tx.commit().map_err(backend)
        })
    }

    fn claim_orphan<'a>(
        &'a self,
        which: Orphans,
        lease: Duration,
        skip: &'a [RunId],
    ) -> StoreFuture<'a, Option<Orphan>> {
        let skip = json_ids(skip);
        let seal = self.row_seal();
        self.with(move |connection, owner| {
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            let claimed: Option<String> = tx
                .query_row(
                    "UPDATE tool_sdk_runs SET owner = ?1, lease_until = ?2
                     WHERE id = (
                         SELECT id FROM tool_sdk_runs
                         WHERE phase = 'running'
                           AND (owner IS NULL OR owner <> ?1)
                           AND (?3 OR lease_until <= ?4)
                           AND id NOT IN (SELECT value FROM json_each(?5))
                         ORDER BY lease_until, id
                         LIMIT 1
                     )
                     RETURNING id",
                    params![
                        owner,
                        lease_until(lease),
                        which == Orphans::All,
                        now_ms(),
                        skip
                    ],
                    |row| row.get(0),
                )
                .optional()
                .map_err(backend)?;
            let Some(run) = claimed else {
                return Ok(None);
            };
            let pending = {
                let mut statement = tx
                    .prepare(
                        "SELECT seq, entry, compensated, idempotency_key FROM tool_sdk_run_entries
                         WHERE run_id = ?1
                           AND (compensated IS NULL OR substr(compensated, 1, ?3) = ?2)
                         ORDER BY seq",
                    )
                    .map_err(backend)?;
                let prefix_len = i64::try_from(TIMED_OUT_PREFIX.len()).unwrap_or(i64::MAX);
                let rows = statement
                    .query_map(params![run, TIMED_OUT_PREFIX, prefix_len], |row| {
                        Ok((
                            row.get::<_, i64>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, Option<String>>(2)?,
                            row.get::<_, String>(3)?,
                        ))
                    })
                    .map_err(backend)?;
                let mut pending = Vec::new();
                for row in rows {
                    let (seq, entry, compensated, key) = row.map_err(backend)?;
                    let Some(attempts) = Compensated::pending_attempts(compensated.as_deref())
                    else {
                        continue;
                    };
                    // An entry that fails its seal undoes the claim: the transaction is dropped.
                    let mut entry = decode_entry(&entry, seal.as_ref(), &run, &key)?;
                    entry.seq = u64::try_from(seq).unwrap_or_default();
                    entry.attempts = attempts;
                    pending.push(entry);
                }
                pending
            };
            tx.commit().map_err(backend)?;
            Ok(Some(Orphan {
                run: RunId::from_string(run),
                pending,
            }))
        })
    }
}

impl SqliteStore {
    /// The paused runs the query's `condition` picks (after `WHERE`, with its order and
    /// `LIMIT ?1`; `?2` is `cutoff`, when given), each with when it paused. A paused turn whose row
    /// fails its seal is left out.
    fn paused_where(
        &self,
        condition: &'static str,
        limit: usize,
        cutoff: Option<i64>,
    ) -> StoreFuture<'_, Vec<PausedRun>> {
        let seal = self.row_seal();
        self.with(move |connection, _| {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let mut statement = connection
                .prepare(&format!(
                    "SELECT r.id, r.paused, r.paused_at, r.pause_id FROM tool_sdk_runs AS r
                     JOIN tool_sdk_waiting_pauses AS w
                       ON w.run_id = r.id AND w.pause_id = r.pause_id
                     WHERE {condition}"
                ))
                .map_err(backend)?;
            let read = |row: &rusqlite::Row<'_>| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, String>(3)?,
                ))
            };
            let rows = match cutoff {
                Some(cutoff) => statement.query_map(params![limit, cutoff], read),
                None => statement.query_map(params![limit], read),
            }
            .map_err(backend)?;
            let mut paused = Vec::new();
            for row in rows {
                let (run, stored, paused_at, pause) = row.map_err(backend)?;
                let stored = stored.unwrap_or_default();
                match decode_paused(&stored, seal.as_ref(), &run, &pause) {
                    Ok(turn) => paused.push(PausedRun::new(at(paused_at), turn)),
                    Err(error) => tracing::warn!(%run, %error, "a paused run is left out"),
                }
            }
            Ok(paused)
        })
    }
}
