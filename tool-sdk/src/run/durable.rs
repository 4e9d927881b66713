//! The loop's side of a [`RunStore`]: write-ahead of compensable successes, and recording a
//! run's end.

use std::sync::Mutex;
use std::time::Duration;

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
