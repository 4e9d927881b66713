//! A [`RunStore`] in this process's memory: the semantics of the durable stores, without the
//! durability.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use crate::store::{
    Compensated, DecidedRun, InMemoryReplayGuard, Orphan, Orphans, PauseId, PausedRun, PausedTurn,
    RecordEntry, ReplayGuard, RunId, RunStore, StoreError, StoreFuture, FINISHED_KEPT,
};

/// A [`RunStore`] in this process's memory (the default): runs survive nothing, but follow the
/// same rules as in the durable stores, so code moves between them unchanged. Like them, it is
/// the [`ReplayGuard`] of the sealed tokens its handles share: a token used through one handle
/// is refused through every other.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use tool_sdk::store::InMemoryRunStore;
/// use tool_sdk::run::ToolLoop;
/// use tool_sdk::{ScriptedModel, ToolRegistry};
///
/// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
///     .with_store(Arc::new(InMemoryRunStore::new()));
/// # let _ = agent;
/// ```
#[derive(Debug)]
pub struct InMemoryRunStore {
    runs: Arc<Mutex<BTreeMap<RunId, Run>>>,
    finished: Arc<Mutex<Finished>>,
    used: Arc<InMemoryReplayGuard>,
    /// The history of decisions, oldest first, the latest [`DECIDED_KEPT`] only.
    decided: Arc<Mutex<VecDeque<DecidedRun>>>,
    owner: u64,
}

/// How many decided pauses the in-memory store keeps in its history: a process's memory is no
/// archive, and a loop without a store keeps its paused runs here.
const DECIDED_KEPT: usize = 1_000;

/// Who finished each run, oldest first, kept for [`FINISHED_KEPT`].
#[derive(Debug, Default)]
struct Finished {
    by: HashMap<RunId, u64>,
    order: VecDeque<(Instant, RunId)>,
}

impl Finished {
    fn forget_old(&mut self, now: Instant) {
        while let Some((at, run)) = self.order.front() {
            if now.saturating_duration_since(*at) < FINISHED_KEPT {
                break;
            }
            self.by.remove(run);
            self.order.pop_front();
        }
    }
}

#[derive(Debug)]
struct Run {
    phase: Phase,
    entries: Vec<(RecordEntry, Option<Compensated>)>,
}

#[derive(Debug)]
enum Phase {
    Running { owner: u64, lease_until: Instant },
    Paused(Box<PausedTurn>, SystemTime),
}

impl Default for InMemoryRunStore {
    fn default() -> Self {
        Self::new()
    }
}

/// The owner of a released run: none (instances are numbered from 1).
const NO_OWNER: u64 = 0;

fn next_owner() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl InMemoryRunStore {
    /// An empty store.
    pub fn new() -> Self {
        Self {
            runs: Arc::default(),
            finished: Arc::default(),
            used: Arc::default(),
            decided: Arc::default(),
            owner: next_owner(),
        }
    }

    /// Another owner over the same runs, as another process sharing a database would be: what
    /// one records the other sees, and each can claim what the other left.
    pub fn handle(&self) -> Self {
        Self {
            runs: Arc::clone(&self.runs),
            finished: Arc::clone(&self.finished),
            used: Arc::clone(&self.used),
            decided: Arc::clone(&self.decided),
            owner: next_owner(),
        }
    }

    fn running_phase(&self, lease: Duration) -> Phase {
        Phase::Running {
            owner: self.owner,
            lease_until: deadline(lease),
        }
    }

    fn runs(&self) -> MutexGuard<'_, BTreeMap<RunId, Run>> {
        self.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The run, when it is running and owned here.
    fn running<'m>(
        &self,
        runs: &'m mut BTreeMap<RunId, Run>,
        run: &RunId,
    ) -> Result<&'m mut Run, StoreError> {
        match runs.get_mut(run) {
            Some(found) if matches!(found.phase, Phase::Running { owner, .. } if owner == self.owner) => {
                Ok(found)
            }
            _ => Err(StoreError::Lost(run.to_string())),
        }
    }
}

impl InMemoryRunStore {
    /// Why a run that is not here cannot be resumed: it finished (the pause it waited at was
    /// decided), or it is unknown.
    fn gone(&self, run: &RunId) -> StoreError {
        let finished = self.finished.lock().unwrap_or_else(PoisonError::into_inner);
        if finished.by.contains_key(run) {
            StoreError::AlreadyDecided(run.to_string())
        } else {
            StoreError::UnknownRun(run.to_string())
        }
    }
}

fn deadline(lease: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(lease).unwrap_or(now)
}

impl RunStore for InMemoryRunStore {
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.runs().insert(
                run.clone(),
                Run {
                    phase: self.running_phase(lease),
                    entries: Vec::new(),
                },
            );
            Ok(())
        })
    }

    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut runs = self.runs();
            self.running(&mut runs, run)?.phase = self.running_phase(lease);
            Ok(())
        })
    }

    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut runs = self.runs();
            self.running(&mut runs, run)?.phase = Phase::Running {
                owner: NO_OWNER,
                lease_until: deadline(after),
            };
            Ok(())
        })
    }

    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut runs = self.runs();
            let found = self.running(&mut runs, run)?;
            if !found
                .entries
                .iter()
                .any(|(e, _)| e.idempotency_key == entry.idempotency_key)
            {
                found.entries.push((entry.clone(), None));
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
            let mut runs = self.runs();
            let found = self.running(&mut runs, run)?;
            for (entry, done) in &mut found.entries {
                if entry.idempotency_key == idempotency_key {
                    *done = Some(outcome.clone());
                }
            }
            Ok(())
        })
    }

    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedTurn) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut runs = self.runs();
            self.running(&mut runs, run)?.phase =
                Phase::Paused(Box::new(paused.clone()), SystemTime::now());
            Ok(())
        })
    }

    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            match self.runs().get(run).map(|found| &found.phase) {
                Some(Phase::Paused(paused, _)) => Ok((**paused).clone()),
                Some(Phase::Running { .. }) => Err(StoreError::AlreadyDecided(run.to_string())),
                None => Err(self.gone(run)),
            }
        })
    }

    fn take_paused<'a>(
        &'a self,
        run: &'a RunId,
        pause: &'a PauseId,
        lease: Duration,
    ) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            let mut runs = self.runs();
            let Some(found) = runs.get_mut(run) else {
                return Err(self.gone(run));
            };
            match &found.phase {
                Phase::Paused(paused, _) if paused.pause() == pause => {}
                _ => return Err(StoreError::AlreadyDecided(run.to_string())),
            }
            match std::mem::replace(&mut found.phase, self.running_phase(lease)) {
                Phase::Paused(paused, _) => Ok(*paused),
                Phase::Running { .. } => Err(StoreError::AlreadyDecided(run.to_string())),
            }
        })
    }

    fn list_paused(&self, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        let mut paused: Vec<PausedRun> = self
            .runs()
            .values()
            .filter_map(|run| match &run.phase {
                Phase::Paused(turn, at) => Some(PausedRun::new(*at, (**turn).clone())),
                Phase::Running { .. } => None,
            })
            .collect();
        paused.sort_by(|a, b| (b.paused_at, b.turn.id()).cmp(&(a.paused_at, a.turn.id())));
        paused.truncate(limit);
        Box::pin(async move { Ok(paused) })
    }

    fn keep_decided<'a>(&'a self, decided: &'a DecidedRun) -> StoreFuture<'a, ()> {
        let mut kept = self.decided.lock().unwrap_or_else(PoisonError::into_inner);
        match kept
            .iter_mut()
            .find(|old| old.run == decided.run && old.pause == decided.pause)
        {
            Some(old) => *old = decided.clone(),
            None => {
                if kept.len() == DECIDED_KEPT {
                    kept.pop_front();
                }
                kept.push_back(decided.clone());
            }
        }
        Box::pin(async { Ok(()) })
    }

    fn list_decided(&self, skip: usize, limit: usize) -> StoreFuture<'_, Vec<DecidedRun>> {
        let kept = self.decided.lock().unwrap_or_else(PoisonError::into_inner);
        let mut listed: Vec<DecidedRun> = kept.iter().cloned().collect();
        listed.sort_by(|a, b| (b.decided_at, &b.run).cmp(&(a.decided_at, &a.run)));
        let page = listed.into_iter().skip(skip).take(limit).collect();
        Box::pin(async move { Ok(page) })
    }

    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut runs = self.runs();
            let mut finished = self.finished.lock().unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            finished.forget_old(now);
            if runs.contains_key(run) {
                self.running(&mut runs, run)?;
                runs.remove(run);
                finished.by.insert(run.clone(), self.owner);
                finished.order.push_back((now, run.clone()));
                return Ok(());
            }
            // Finished by another owner: this one lost the run before it came to end it.
            match finished.by.get(run) {
                Some(by) if *by != self.owner => Err(StoreError::Lost(run.to_string())),
                _ => Ok(()),
            }
        })
    }

    fn claim_orphan<'a>(
        &'a self,
        which: Orphans,
        lease: Duration,
        skip: &'a [RunId],
    ) -> StoreFuture<'a, Option<Orphan>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut runs = self.runs();
            let claimable = runs.iter_mut().find(|(id, found)| match found.phase {
                Phase::Running { owner, lease_until } => {
                    owner != self.owner
                        && (which == Orphans::All || lease_until <= now)
                        && !skip.contains(id)
                }
                Phase::Paused(..) => false,
            });
            let Some((id, found)) = claimable else {
                return Ok(None);
            };
            found.phase = self.running_phase(lease);
            Ok(Some(Orphan {
                run: id.clone(),
                // Numbered in the order recorded, as the databases do.
                pending: (0u64..)
                    .zip(&found.entries)
                    .filter_map(|(seq, (entry, done))| {
                        let attempts = match done {
                            None => 0,
                            Some(Compensated::TimedOut { attempts }) => *attempts,
                            Some(_) => return None,
                        };
                        Some(RecordEntry {
                            seq,
                            attempts,
                            ..entry.clone()
                        })
                    })
                    .collect(),
            }))
        })
    }
}

impl ReplayGuard for InMemoryRunStore {
    fn consume<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool> {
        self.used.consume(nonce, expires_at)
    }
}
