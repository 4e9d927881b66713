//! The loop's side of a [`RunStore`]: run ids, the lease heartbeat, write-ahead of compensable
//! successes, and recording a run's end.

use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::{select, Either};
use tokio_util::sync::CancellationToken;

use crate::compensate::Held;

use crate::define::ToolOutput;
use crate::model::ToolCall;
use crate::store::{RecordEntry, RunId, RunStore, StoreError};

/// Records that a run ended, trying a few times: a run whose end is not recorded looks, to
/// recovery, like one that stopped in the middle, and would be rolled back.
pub(crate) async fn record_end(store: &dyn RunStore, run: &RunId) -> Result<(), StoreError> {
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
pub(crate) struct WriteAhead<'s> {
    store: Option<&'s dyn RunStore>,
    run: &'s RunId,
    round: usize,
    /// Where the round's first result goes in the conversation.
    base: usize,
    entries: Mutex<Vec<(usize, RecordEntry, Held)>>,
    failure: Mutex<Option<StoreError>>,
}

impl<'s> WriteAhead<'s> {
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
        let mut held = Held::LocalOnly;
        if let Some(store) = self.store {
            match store.record(self.run, &entry).await {
                Ok(()) => held = Held::Stored,
                Err(error) => {
                    tracing::error!(run = %self.run, error = %error, "a success could not be recorded");
                    // Refused as another owner's: certainly not in the store. Any other
                    // failure may still have been written.
                    if !matches!(error, StoreError::Lost(_)) {
                        held = Held::Stored;
                    }
                    if let Ok(mut failure) = self.failure.lock() {
                        failure.get_or_insert(error);
                    }
                }
            }
        }
        // Kept in memory even when the write failed, so this process still rolls it back.
        if let Ok(mut entries) = self.entries.lock() {
            entries.push((position, entry, held));
        }
    }

    /// The successes in the order they finished, and the first store failure.
    pub(crate) fn into_parts(self) -> (Vec<(usize, RecordEntry, Held)>, Option<StoreError>) {
        (
            self.entries.into_inner().unwrap_or_default(),
            self.failure.into_inner().unwrap_or_default(),
        )
    }
}

/// Keeps a run's lease alive while the run goes on, from a task of its own: a tool or a
/// compensating action that holds the run's thread (a synchronous one) does not hold the
/// renewals, as long as the runtime has another worker thread. On a single-threaded runtime,
/// renewals wait for such a tool; the lease must then outlast it.
///
/// When the store says another owner took the run over, the heartbeat cancels the run's token:
/// nothing new starts, what runs finishes, and the run ends as [`StoreError::Lost`].
pub(crate) struct Heartbeat {
    stop: CancellationToken,
    lost: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts renewing `run` every third of `lease`, when there is a store and a runtime.
    pub(crate) fn start(
        store: Option<&Arc<dyn RunStore>>,
        run: &RunId,
        lease: Duration,
        run_cancel: &CancellationToken,
    ) -> Self {
        let stop = CancellationToken::new();
        let lost = CancellationToken::new();
        let task = store
            .zip(tokio::runtime::Handle::try_current().ok())
            .map(|(store, runtime)| {
                let (store, run) = (Arc::clone(store), run.clone());
                let (stop, lost, run_cancel) = (stop.clone(), lost.clone(), run_cancel.clone());
                runtime.spawn(renew_until_stopped(
                    store, run, lease, stop, lost, run_cancel,
                ))
            });
        Self { stop, lost, task }
    }

    /// Whether the store said the run is another owner's.
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.is_cancelled()
    }

    /// Stops renewing; once this returns, no renewal is in flight.
    pub(crate) async fn stop(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        // A run future dropped where it stands (its process stopping) renews no more.
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

async fn renew_until_stopped(
    store: Arc<dyn RunStore>,
    run: RunId,
    lease: Duration,
    stop: CancellationToken,
    lost: CancellationToken,
    run_cancel: CancellationToken,
) {
    let every = (lease / 3).max(Duration::from_millis(10));
    loop {
        if let Either::Right(((), _)) =
            select(pin!(tokio::time::sleep(every)), pin!(stop.cancelled())).await
        {
            return;
        }
        match store.renew(&run, lease).await {
            Ok(()) => {}
            Err(StoreError::Lost(_)) => {
                tracing::error!(run = %run, "the run was taken over; stopping it");
                lost.cancel();
                run_cancel.cancel();
                return;
            }
            // A passing failure: the lease still has two thirds to run.
            Err(error) => tracing::warn!(run = %run, error = %error, "lease not renewed"),
        }
    }
}
