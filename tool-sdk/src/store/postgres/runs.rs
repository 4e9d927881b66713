//! The PostgreSQL [`RunStore`]: each operation one statement; a write to a run locks the run's
//! row (`FOR SHARE`) while it checks ownership, so it cannot interleave with a takeover.

use std::time::{Duration, SystemTime};

use super::{backend, PostgresStore};
use crate::store::{
    decode_entry, decode_paused, encode_entry, encode_paused, not_waiting, Compensated, DecidedRun,
    Orphan, Orphans, PauseId, PausedRun, PausedTurn, RecordEntry, RunId, RunStore, StoreError,
    StoreFuture, FINISHED_KEPT, TIMED_OUT_PREFIX,
};

fn millis(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

impl PostgresStore {
    /// Whether `run` is running and owned here.
    async fn owned(&self, run: &str) -> Result<bool, StoreError> {
        Ok(self
            .connection()
            .await
            .map_err(backend)?
            .query_opt(
                "SELECT 1 FROM tool_sdk_runs WHERE id = $1 AND phase = 'running' AND owner = $2",
                &[&run, &&*self.owner],
            )
            .await
            .map_err(backend)?
            .is_some())
    }
}

/// Why `run` is not paused (at the pause asked for): it is known, running or finished, so its
/// pause was decided; or it is unknown.
async fn not_paused(
    connection: &deadpool_postgres::Object,
    run: &RunId,
) -> Result<StoreError, StoreError> {
    let known = connection
        .query_opt(
            "SELECT 1 FROM tool_sdk_runs WHERE id = $1
             UNION ALL SELECT 1 FROM tool_sdk_finished_runs WHERE id = $1
             LIMIT 1",
            &[&run.as_str()],
        )
        .await
        .map_err(backend)?;
    Ok(match known {
        Some(_) => StoreError::AlreadyDecided(run.to_string()),
        None => StoreError::UnknownRun(run.to_string()),
    })
}

impl RunStore for PostgresStore {
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.connection()
                .await
                .map_err(backend)?
                .execute(
                    "INSERT INTO tool_sdk_runs (id, phase, owner, lease_until)
                     VALUES ($1, 'running', $2, now() + $3::bigint * interval '1 millisecond')",
                    &[&run.as_str(), &&*self.owner, &millis(lease)],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let renewed = self
                .connection()
                .await
                .map_err(backend)?
                .execute(
                    "UPDATE tool_sdk_runs
                     SET lease_until = now() + $3::bigint * interval '1 millisecond'
                     WHERE id = $1 AND phase = 'running' AND owner = $2",
                    &[&run.as_str(), &&*self.owner, &millis(lease)],
                )
                .await
                .map_err(backend)?;
            if renewed == 0 {
                return Err(StoreError::Lost(run.to_string()));
            }
            Ok(())
        })
    }

    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let released = self
                .connection()
                .await
                .map_err(backend)?
                .execute(
                    "UPDATE tool_sdk_runs
                     SET owner = NULL, lease_until = now() + $3::bigint * interval '1 millisecond'
                     WHERE id = $1 AND phase = 'running' AND owner = $2",
                    &[&run.as_str(), &&*self.owner, &millis(after)],
                )
                .await
                .map_err(backend)?;
            if released == 0 {
                return Err(StoreError::Lost(run.to_string()));
            }
            Ok(())
        })
    }

    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let text = encode_entry(entry, self.row_seal.as_ref(), run.as_str())?;
            let inserted = self
                .connection()
                .await
                .map_err(backend)?
                .execute(
                    "INSERT INTO tool_sdk_run_entries (run_id, idempotency_key, entry)
                     SELECT $1, $2, $3
                     WHERE EXISTS (
                         SELECT 1 FROM tool_sdk_runs
                         WHERE id = $1 AND phase = 'running' AND owner = $4
                         FOR SHARE
                     )
                     ON CONFLICT (run_id, idempotency_key) DO NOTHING",
                    &[&run.as_str(), &entry.idempotency_key, &text, &&*self.owner],
                )
                .await
                .map_err(backend)?;
            // Nothing inserted: recorded already (fine), or the run is not ours.
            if inserted == 0 && !self.owned(run.as_str()).await? {
                return Err(StoreError::Lost(run.to_string()));
            }
            Ok(())
        })
    }

    fn compensated<'a>(
        &'a self,
        run: &'a RunId,
        idempotency_key: &'a str,
        outcome: &'a Compensated,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let outcome = outcome.to_column();
            let updated = self
                .connection()
                .await
                .map_err(backend)?
                .execute(
                    "UPDATE tool_sdk_run_entries SET compensated = $3
                     WHERE run_id = $1 AND idempotency_key = $2
                       AND EXISTS (
                           SELECT 1 FROM tool_sdk_runs
                           WHERE id = $1 AND phase = 'running' AND owner = $4
                           FOR SHARE
                       )",
                    &[&run.as_str(), &idempotency_key, &outcome, &&*self.owner],
                )
                .await
                .map_err(backend)?;
            if updated == 0 && !self.owned(run.as_str()).await? {
                return Err(StoreError::Lost(run.to_string()));
            }
            Ok(())
        })
    }

    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedTurn) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let encoded = encode_paused(paused, self.row_seal.as_ref(), run.as_str())?;
            let mut connection = self.connection().await.map_err(backend)?;
            let tx = connection.transaction().await.map_err(backend)?;
            let changed = tx
                .execute(
                    "UPDATE tool_sdk_runs
                     SET phase = 'paused', owner = NULL, lease_until = NULL, paused = $3,
                         pause_id = $4, paused_at = now(), deadline = $5
                     WHERE id = $1 AND phase = 'running' AND owner = $2",
                    &[
                        &run.as_str(),
                        &&*self.owner,
                        &encoded,
                        &paused.pause().as_str(),
                        &paused.deadline(),
                    ],
                )
                .await
                .map_err(backend)?;
            if changed == 0 {
                return Err(StoreError::Lost(run.to_string()));
            }
            tx.execute(
                "INSERT INTO tool_sdk_waiting_pauses (run_id, pause_id) VALUES ($1, $2)
                 ON CONFLICT DO NOTHING",
                &[&run.as_str(), &paused.pause().as_str()],
            )
            .await
            .map_err(backend)?;
            tx.commit().await.map_err(backend)
        })
    }

    fn list_paused(&self, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        Box::pin(async move {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            self.paused_where(
                "r.phase = 'paused'
                 ORDER BY r.paused_at DESC NULLS LAST, r.id DESC LIMIT $1",
                &[&limit],
            )
            .await
        })
    }

    fn keep_decided<'a>(&'a self, decided: &'a DecidedRun) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let record = decided.to_column()?;
            self.connection()
                .await
                .map_err(backend)?
                .execute(
                    "INSERT INTO tool_sdk_decided (run_id, pause_id, decided_at, record)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (run_id, pause_id)
                     DO UPDATE SET decided_at = excluded.decided_at, record = excluded.record",
                    &[
                        &decided.run.as_str(),
                        &decided.pause.as_str(),
                        &decided.decided_at,
                        &record,
                    ],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn list_decided(&self, skip: usize, limit: usize) -> StoreFuture<'_, Vec<DecidedRun>> {
        Box::pin(async move {
            let (skip, limit) = (
                i64::try_from(skip).unwrap_or(i64::MAX),
                i64::try_from(limit).unwrap_or(i64::MAX),
            );
            let rows = self
                .connection()
                .await
                .map_err(backend)?
                .query(
                    "SELECT run_id, record FROM tool_sdk_decided
                     ORDER BY decided_at DESC, run_id DESC LIMIT $1 OFFSET $2",
                    &[&limit, &skip],
                )
                .await
                .map_err(backend)?;
            let mut listed = Vec::new();
            for row in rows {
                let run: &str = row.try_get(0).map_err(backend)?;
                let record: &str = row.try_get(1).map_err(backend)?;
                match DecidedRun::from_column(record) {
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
        Box::pin(async move {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            self.paused_where(
                "r.phase = 'paused' AND r.deadline IS NOT NULL AND r.deadline <= $2
                 ORDER BY r.deadline, r.id LIMIT $1",
                &[&limit, &now],
            )
            .await
        })
    }

    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            let connection = self.connection().await.map_err(backend)?;
            let row = connection
                .query_opt(
                    "SELECT r.paused, r.pause_id, EXISTS (
                         SELECT 1 FROM tool_sdk_waiting_pauses AS w
                         WHERE w.run_id = r.id AND w.pause_id = r.pause_id
                     )
                     FROM tool_sdk_runs AS r WHERE r.id = $1 AND r.phase = 'paused'",
                    &[&run.as_str()],
                )
                .await
                .map_err(backend)?;
            let Some(row) = row else {
                return Err(not_paused(&connection, run).await?);
            };
            if !row.try_get::<_, bool>(2).map_err(backend)? {
                return Err(not_waiting(run.as_str()));
            }
            let paused: String = row.try_get(0).map_err(backend)?;
            let pause: String = row.try_get(1).map_err(backend)?;
            decode_paused(&paused, self.row_seal.as_ref(), run.as_str(), &pause)
        })
    }

    fn take_paused<'a>(
        &'a self,
        run: &'a RunId,
        pause: &'a PauseId,
        lease: Duration,
    ) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            let mut connection = self.connection().await.map_err(backend)?;
            // A turn that fails its seal is not taken: the transaction is dropped, undone.
            let tx = connection.transaction().await.map_err(backend)?;
            // One conditional statement checks the pause and takes it; the row lock makes a
            // second taker wait, then find the run no longer waiting there.
            let row = tx
                .query_opt(
                    "UPDATE tool_sdk_runs AS r
                     SET phase = 'running', owner = $2,
                         lease_until = now() + $3::bigint * interval '1 millisecond',
                         paused = NULL, pause_id = ''
                     FROM (
                         SELECT id, paused FROM tool_sdk_runs
                         WHERE id = $1 AND phase = 'paused' AND pause_id = $4
                         FOR UPDATE
                     ) AS old
                     WHERE r.id = old.id AND r.phase = 'paused' AND r.pause_id = $4
                     RETURNING old.paused",
                    &[
                        &run.as_str(),
                        &&*self.owner,
                        &millis(lease),
                        &pause.as_str(),
                    ],
                )
                .await
                .map_err(backend)?;
            let Some(row) = row else {
                drop(tx);
                return Err(not_paused(&connection, run).await?);
            };
            // What the take consumes is kept apart from the row: a row put back after this
            // take finds its pause no longer waiting.
            let waiting = tx
                .execute(
                    "DELETE FROM tool_sdk_waiting_pauses WHERE run_id = $1 AND pause_id = $2",
                    &[&run.as_str(), &pause.as_str()],
                )
                .await
                .map_err(backend)?;
            if waiting == 0 {
                return Err(not_waiting(run.as_str()));
            }
            let paused: String = row.try_get(0).map_err(backend)?;
            let paused = decode_paused(
                &paused,
                self.row_seal.as_ref(),
                run.as_str(),
                pause.as_str(),
            )?;
            tx.commit().await.map_err(backend)?;
            Ok(paused)
        })
    }

    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let connection = self.connection().await.map_err(backend)?;
            connection
                .execute(
                    "DELETE FROM tool_sdk_finished_runs
                     WHERE finished_at < now() - $1::bigint * interval '1 millisecond'",
                    &[&millis(FINISHED_KEPT)],
                )
                .await
                .map_err(backend)?;
            // One statement ends the run and says who ended it.
            let finished = connection
                .execute(
                    "WITH ended AS (
                         DELETE FROM tool_sdk_runs WHERE id = $1 AND owner = $2 RETURNING id
                     )
                     INSERT INTO tool_sdk_finished_runs (id, owner, finished_at)
                     SELECT id, $2, now() FROM ended
                     ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner,
                                                    finished_at = EXCLUDED.finished_at",
                    &[&run.as_str(), &&*self.owner],
                )
                .await
                .map_err(backend)?;
            if finished == 1 {
                return Ok(());
            }
            let exists = connection
                .query_opt(
                    "SELECT 1 FROM tool_sdk_runs WHERE id = $1",
                    &[&run.as_str()],
                )
                .await
                .map_err(backend)?
                .is_some();
            let finisher: Option<String> = connection
                .query_opt(
                    "SELECT owner FROM tool_sdk_finished_runs WHERE id = $1",
                    &[&run.as_str()],
                )
                .await
                .map_err(backend)?
                .map(|row| row.try_get(0))
                .transpose()
                .map_err(backend)?;
            // Still there under another owner, or finished by another: not ours to end.
            if exists || finisher.is_some_and(|by| by != *self.owner) {
                return Err(StoreError::Lost(run.to_string()));
            }
            Ok(())
        })
    }

    fn claim_orphan<'a>(
        &'a self,
        which: Orphans,
        lease: Duration,
        skip: &'a [RunId],
    ) -> StoreFuture<'a, Option<Orphan>> {
        Box::pin(async move {
            let skip: Vec<&str> = skip.iter().map(RunId::as_str).collect();
            // The claim and the read of its entries are one transaction: if the read fails, the
            // claim is undone, and the run stays an orphan for the next claimer (this process
            // included) rather than becoming ours with nothing rolled back.
            let mut client = self.connection().await.map_err(backend)?;
            let tx = client.transaction().await.map_err(backend)?;
            // SKIP LOCKED: replicas claiming at once take different runs.
            let claimed = tx
                .query_opt(
                    "UPDATE tool_sdk_runs
                     SET owner = $1, lease_until = now() + $2::bigint * interval '1 millisecond'
                     WHERE id = (
                         SELECT id FROM tool_sdk_runs
                         WHERE phase = 'running'
                           AND owner IS DISTINCT FROM $1
                           AND ($3 OR lease_until <= now())
                           AND id <> ALL($4::text[])
                         ORDER BY lease_until, id
                         LIMIT 1
                         FOR UPDATE SKIP LOCKED
                     )
                     RETURNING id",
                    &[
                        &&*self.owner,
                        &millis(lease),
                        &(which == Orphans::All),
                        &skip,
                    ],
                )
                .await
                .map_err(backend)?;
            let Some(claimed) = claimed else {
                tx.commit().await.map_err(backend)?;
                return Ok(None);
            };
            let run: String = claimed.try_get(0).map_err(backend)?;
            // Ours now: the row lock keeps any other owner from adding entries.
            let rows = tx
                .query(
                    "SELECT seq, entry, compensated, idempotency_key FROM tool_sdk_run_entries
                     WHERE run_id = $1
                       AND (compensated IS NULL OR starts_with(compensated, $2))
                     ORDER BY seq",
                    &[&run, &TIMED_OUT_PREFIX],
                )
                .await
                .map_err(backend)?;
            let mut pending = Vec::with_capacity(rows.len());
            for row in rows {
                let seq: i64 = row.try_get(0).map_err(backend)?;
                let text: String = row.try_get(1).map_err(backend)?;
                let compensated: Option<String> = row.try_get(2).map_err(backend)?;
                let key: String = row.try_get(3).map_err(backend)?;
                let Some(attempts) = Compensated::pending_attempts(compensated.as_deref()) else {
                    continue;
                };
                // An entry that fails its seal undoes the claim: the transaction is dropped.
                let mut entry = decode_entry(&text, self.row_seal.as_ref(), &run, &key)?;
                entry.seq = u64::try_from(seq).unwrap_or_default();
                entry.attempts = attempts;
                pending.push(entry);
            }
            tx.commit().await.map_err(backend)?;
            Ok(Some(Orphan {
                run: RunId::from_string(run),
                pending,
            }))
        })
    }
}

impl PostgresStore {
    /// The paused runs the query's `condition` picks (after `WHERE`, with its order and limit,
    /// its parameters `parameters`), each with when it paused. A paused turn whose row fails
    /// its seal is left out.
    async fn paused_where(
        &self,
        condition: &str,
        parameters: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<PausedRun>, StoreError> {
        let rows = self
            .connection()
            .await
            .map_err(backend)?
            .query(
                &format!(
                    "SELECT r.id, r.paused, COALESCE(r.paused_at, 'epoch'::timestamptz),
                            r.pause_id
                     FROM tool_sdk_runs AS r
                     JOIN tool_sdk_waiting_pauses AS w
                       ON w.run_id = r.id AND w.pause_id = r.pause_id
                     WHERE {condition}"
                ),
                parameters,
            )
            .await
            .map_err(backend)?;
        let mut paused = Vec::new();
        for row in rows {
            let run: &str = row.try_get(0).map_err(backend)?;
            let pause: &str = row.try_get(3).map_err(backend)?;
            let read = row
                .try_get::<_, &str>(1)
                .map_err(backend)
                .and_then(|stored| decode_paused(stored, self.row_seal.as_ref(), run, pause));
            let at = row.try_get::<_, SystemTime>(2).map_err(backend);
            match read.and_then(|turn| Ok(PausedRun::new(at?, turn))) {
                Ok(listed) => paused.push(listed),
                Err(error) => tracing::warn!(%run, %error, "a paused run is left out"),
            }
        }
        Ok(paused)
    }
}
