//! The loop's side of a [`RunStore`]: run ids, the lease heartbeat, write-ahead of compensable
//! successes, and recording a run's end.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use futures_util::future::{select, Either};

use crate::compensate::RecordEntry;
use crate::durable::{RunId, RunStore, StoreError};
use crate::run::{LoopOutcome, LoopStatus, ToolLoop};
use crate::{ToolCall, ToolOutput};

/// A fresh run id, unique across processes (so are the idempotency keys built on it): a
/// random prefix drawn once per process, then a counter — one system call per process, not
/// per run. A process-local prefix only if the system has no randomness to give.
pub(crate) fn new_run_id() -> RunId {
    static PREFIX: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let prefix = PREFIX.get_or_init(|| match RunId::random() {
        Ok(id) => id.as_str().to_owned(),
        Err(_) => {
            let since_epoch = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            format!("p{}-{}", std::process::id(), since_epoch.as_nanos())
        }
    });
    RunId::from_string(format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// Records that a run ended, trying a few times: a run whose end is not recorded looks, to
/// recovery, like one that stopped in the middle, and would be rolled back.
pub(crate) async fn finish_run(store: &dyn RunStore, run: &RunId) -> Result<(), StoreError> {
    let mut delay = Duration::from_millis(50);
    let mut attempt = 1;
    loop {
        match store.finish(run).await {
            Ok(()) => return Ok(()),
            Err(error) if attempt >= 3 => {
                tracing::error!(run = %run, error = %error, "the run's end could not be recorded");
                return Err(error);
            }
            Err(_) => {
                tokio::time::sleep(delay).await;
                delay *= 4;
                attempt += 1;
            }
        }
    }
}

/// The compensable successes of one round, written ahead to the store as they happen.
pub(crate) struct Finished<'s> {
    store: Option<&'s dyn RunStore>,
    run: &'s RunId,
    round: usize,
    /// Where the round's first result goes in the conversation.
    base: usize,
    entries: Mutex<Vec<(usize, RecordEntry)>>,
    failure: Mutex<Option<StoreError>>,
}

impl<'s> Finished<'s> {
    pub(crate) fn new(
        store: Option<&'s dyn RunStore>,
        run: &'s RunId,
        round: usize,
        base: usize,
    ) -> Self {
        Self {
            store,
            run,
            round,
            base,
            entries: Mutex::new(Vec::new()),
            failure: Mutex::new(None),
        }
    }

    /// Records the success of the call at `position`: durably first, when there is a store.
    /// A failed write is kept, and ends the round: the run must not go on unrecorded.
    pub(crate) async fn push(
        &self,
        position: usize,
        key: String,
        call: ToolCall,
        output: &ToolOutput,
    ) {
        let entry = RecordEntry::new(
            self.run.as_str(),
            self.round,
            key,
            call,
            output,
            self.base + position,
        );
        if let Some(store) = self.store {
            if let Err(error) = store.record(self.run, &entry).await {
                tracing::error!(run = %self.run, error = %error, "a success could not be recorded");
                if let Ok(mut failure) = self.failure.lock() {
                    failure.get_or_insert(error);
                }
            }
        }
        // Kept in memory even when the write failed, so this process still rolls it back.
        if let Ok(mut entries) = self.entries.lock() {
            entries.push((position, entry));
        }
    }

    /// The successes in the order they finished, and the first store failure.
    pub(crate) fn into_parts(self) -> (Vec<(usize, RecordEntry)>, Option<StoreError>) {
        (
            self.entries.into_inner().unwrap_or_default(),
            self.failure.into_inner().unwrap_or_default(),
        )
    }
}

impl ToolLoop {
    /// Runs `work` while renewing the run's lease at a third of its length. When the store says
    /// another owner took the run over, `work` is dropped where it stands: the run is theirs.
    pub(crate) async fn heartbeat(
        &self,
        run: &RunId,
        work: impl Future<Output = LoopOutcome>,
    ) -> LoopOutcome {
        let Some(store) = &self.store else {
            return work.await;
        };
        let every = (self.lease / 3).max(Duration::from_millis(10));
        let renewals = async {
            loop {
                tokio::time::sleep(every).await;
                match store.renew(run, self.lease).await {
                    Ok(()) => {}
                    Err(StoreError::Lost(id)) => return StoreError::Lost(id),
                    // A passing failure: the lease still has two thirds to run.
                    Err(error) => tracing::warn!(run = %run, error = %error, "lease not renewed"),
                }
            }
        };
        let work = pin!(work);
        let renewals = pin!(renewals);
        let first = match select(work, renewals).await {
            Either::Left((outcome, _)) => Ok(outcome),
            Either::Right((lost, _)) => Err(lost),
        };
        match first {
            Ok(outcome) => outcome,
            Err(lost) => {
                tracing::error!(run = %run, "the run was taken over; stopping here");
                LoopOutcome {
                    status: LoopStatus::StoreFailed(lost),
                    rounds: 0,
                    calls: Vec::new(),
                    compensations: Vec::new(),
                    run_id: run.clone(),
                    store_error: None,
                }
            }
        }
    }
}
