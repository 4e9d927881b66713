//! A lease kept alive: renewals from a task of their own, for as long as the work that holds
//! the lease goes on — a run, or the rollback of a run claimed for recovery.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::{select, Either};
use tokio_util::sync::CancellationToken;

use crate::store::{RunId, RunStore, StoreError};

/// Keeps a run's lease alive while its owner works on it — running it, or rolling it back,
/// however long one compensating action takes — from a task of its own: a tool or a
/// compensating action that holds the run's thread (a synchronous one) does not hold the
/// renewals, as long as the runtime has another worker thread. On a single-threaded runtime,
/// renewals wait for such a tool; the lease must then outlast it.
///
/// When the store says another owner took the run over, the heartbeat cancels `on_lost`:
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
        on_lost: &CancellationToken,
    ) -> Self {
        let stop = CancellationToken::new();
        let lost = CancellationToken::new();
        let task = store
            .zip(tokio::runtime::Handle::try_current().ok())
            .map(|(store, runtime)| {
                let (store, run) = (Arc::clone(store), run.clone());
                let (stop, lost, on_lost) = (stop.clone(), lost.clone(), on_lost.clone());
                runtime.spawn(renew_until_stopped(store, run, lease, stop, lost, on_lost))
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
    on_lost: CancellationToken,
) {
    let every = (lease / 3).max(Duration::from_millis(10));
    // Renewals start on a fixed beat, not a pause after each one, so the store's latency
    // does not add to the time between them: a renewal that takes a while still leaves the
    // next one a third of the lease later than the last one started. One that took longer
    // than a beat is followed by the next at once, then the beat goes on from there. (A
    // deadline of its own rather than a `tokio::time::Interval`, which allocates: most runs
    // end before their first renewal.)
    let mut next = tokio::time::Instant::now() + every;
    loop {
        let beat = tokio::time::sleep_until(next);
        if let Either::Right((_, _)) = select(pin!(beat), pin!(stop.cancelled())).await {
            return;
        }
        next = (next + every).max(tokio::time::Instant::now());
        match store.renew(&run, lease).await {
            Ok(()) => {}
            Err(StoreError::Lost(_)) => {
                tracing::error!(run = %run, "the run was taken over; stopping work on it");
                lost.cancel();
                on_lost.cancel();
                return;
            }
            // A passing failure: the lease still has two thirds to run.
            Err(error) => tracing::warn!(run = %run, error = %error, "lease not renewed"),
        }
    }
}
