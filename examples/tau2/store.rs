//! A domain's database behind one lock, with the journal of its writes' pre-images: reads see
//! it, writes change it and keep what they touched, compensations put that back. With a log
//! (`log.rs`), each change is durable as it is made, and a later process opens the database
//! and journal as they were.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::log::{Event, Log};
use crate::undo::Journal;

/// The records one write touched, as they were, for a database `Db`.
pub(crate) trait PreImage<Db>: Default + Serialize + DeserializeOwned {
    /// Puts every kept record back into `db`.
    fn restore(&self, db: &mut Db);

    /// The same records as `db` holds them now: after the write, its post-image.
    fn now(&self, db: &Db) -> Self;

    /// Whether no record was kept.
    fn is_empty(&self) -> bool;

    /// The records kept, each named uniquely within the database (`reservation:ZFA04Y`).
    fn records(&self) -> Vec<String>;
}

/// A database and the pre-images of the writes made to it; with a log, every change is
/// durable as it is made ([`Store::open`]).
#[derive(Debug)]
pub(crate) struct Store<Db, P> {
    state: Mutex<State<Db, P>>,
}

#[derive(Debug)]
struct State<Db, P> {
    db: Db,
    journal: Journal<P>,
    log: Option<Log>,
}

impl<Db: Serialize + PartialEq, P: PreImage<Db>> Store<Db, P> {
    /// A store over `db`, in memory only.
    pub(crate) fn new(db: Db) -> Self {
        Self {
            state: Mutex::new(State {
                db,
                journal: Journal::default(),
                log: None,
            }),
        }
    }

    /// A store over `db` (as `db.json` holds it) and the log at `path`: the changes the log
    /// holds are made again, in order, so the database and its journal are what the process
    /// that wrote them left; each change from now on is logged too.
    pub(crate) fn open(mut db: Db, path: &Path) -> Result<Self, String> {
        let log = Log::open(path)?;
        let mut journal = Journal::default();
        for change in log.changes::<P>()? {
            match change {
                Event::Wrote {
                    tool,
                    output,
                    before,
                    after,
                } => {
                    after.restore(&mut db);
                    let records = before.records();
                    journal.record(&tool, output, before, records);
                }
                Event::Changed { after } => after.restore(&mut db),
                Event::Undone { entries, claimed } => {
                    undo(&mut db, &mut journal, &entries, claimed)?;
                }
            }
        }
        Ok(Self {
            state: Mutex::new(State {
                db,
                journal,
                log: Some(log),
            }),
        })
    }

    /// τ²'s hash of the database as it is now.
    pub(crate) fn db_hash(&self) -> Result<String, String> {
        let state = self.lock()?;
        crate::db_hash::db_hash(&state.db).map_err(|error| error.to_string())
    }

    /// Whether the database is exactly `db`.
    pub(crate) fn holds(&self, db: &Db) -> Result<bool, String> {
        Ok(self.lock()?.db == *db)
    }

    /// The database as it is now.
    pub(crate) fn snapshot(&self) -> Result<Db, String>
    where
        Db: Clone,
    {
        Ok(self.lock()?.db.clone())
    }

    fn lock(&self) -> Result<MutexGuard<'_, State<Db, P>>, String> {
        self.state
            .lock()
            .map_err(|_| "the database is unavailable".to_owned())
    }

    /// Runs a read.
    pub(crate) fn read<T>(&self, read: impl FnOnce(&Db) -> Result<T, String>) -> Result<T, String> {
        read(&self.lock()?.db)
    }

    /// Runs a write of `tool`; when it succeeds, keeps the pre-image of the records it touched
    /// for its compensation. A write that fails keeps what it changed before failing, as τ²'s
    /// does (the few that can fail after a change say so). With a log, the change is logged
    /// before this returns; a change that cannot be logged is taken back, and the write fails.
    pub(crate) fn write<T: Serialize>(
        &self,
        tool: &'static str,
        write: impl FnOnce(&mut Db, &mut P) -> Result<T, String>,
    ) -> Result<T, String> {
        let mut state = self.lock()?;
        let State { db, journal, log } = &mut *state;
        let mut touched = P::default();
        let result = write(db, &mut touched);
        let output = match &result {
            Ok(output) => Some(serde_json::to_value(output).map_err(|error| error.to_string())),
            Err(_) => None,
        }
        .transpose();
        let logged = match (&output, log) {
            (Err(error), _) => Err(error.clone()),
            (Ok(_), None) => Ok(()),
            (Ok(Some(output)), Some(log)) => log.append(&Event::Wrote {
                tool: tool.to_owned(),
                output: output.clone(),
                before: &touched,
                after: &touched.now(db),
            }),
            (Ok(None), Some(_)) if touched.is_empty() => Ok(()),
            (Ok(None), Some(log)) => log.append(&Event::Changed {
                after: &touched.now(db),
            }),
        };
        if let Err(error) = logged {
            touched.restore(db);
            return Err(error);
        }
        let output_value = output?;
        let result = result?;
        if let Some(value) = output_value {
            let records = touched.records();
            journal.record(tool, value, touched, records);
        }
        Ok(result)
    }

    /// The compensation of every write: puts back the records the write of `tool` that
    /// returned `output` touched, once per idempotency key, after undoing every later write
    /// of those records (`undo.rs` says why).
    pub(crate) fn restore(&self, tool: &str, output: &Value) -> Result<(), String> {
        let key = tool_sdk::compensate::idempotency_key();
        let mut state = self.lock()?;
        let Some(index) = state.journal.find(tool, output, key.as_deref())? else {
            return Ok(());
        };
        let entries = state.journal.plan(index);
        self.undo(&mut state, entries, Some((index, key.unwrap_or_default())))
    }

    /// Undoes every write the journal holds that is not undone yet, newest first; how many.
    /// After a recovery, those are writes that took effect while the process that made them
    /// died before the loop's record of them was durable: the loop cannot know of them, the
    /// database's log does.
    pub(crate) fn undo_unrecorded(&self) -> Result<usize, String> {
        let mut state = self.lock()?;
        let pending = state.journal.pending();
        let count = pending.len();
        self.undo(&mut state, pending, None)?;
        Ok(count)
    }

    /// How many writes the journal holds, how many are not undone, and how many no
    /// compensation claimed.
    pub(crate) fn writes(&self) -> Result<(usize, usize, usize), String> {
        let state = self.lock()?;
        let (writes, unclaimed) = state.journal.counts();
        Ok((writes, state.journal.pending().len(), unclaimed))
    }

    /// Undoes the writes at `entries`, in order, and lets the compensation `claimed` names
    /// claim its write: logged first, as one change.
    fn undo(
        &self,
        state: &mut State<Db, P>,
        entries: Vec<usize>,
        claimed: Option<(usize, String)>,
    ) -> Result<(), String> {
        if entries.is_empty() && claimed.is_none() {
            return Ok(());
        }
        let State { db, journal, log } = state;
        let change = Event::<P>::Undone { entries, claimed };
        if let Some(log) = log {
            log.append(&change)?;
        }
        if let Event::Undone { entries, claimed } = change {
            undo(db, journal, &entries, claimed)?;
        }
        Ok(())
    }
}

/// Puts back the pre-images of the writes at `entries`, in order, and marks the write
/// `claimed` names claimed by its compensation.
fn undo<Db, P: PreImage<Db>>(
    db: &mut Db,
    journal: &mut Journal<P>,
    entries: &[usize],
    claimed: Option<(usize, String)>,
) -> Result<(), String> {
    for &index in entries {
        journal.undo(index)?.restore(db);
    }
    match claimed {
        Some((index, key)) => journal.claim(index, &key),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    type Db = indexmap::IndexMap<String, u32>;

    /// The one record a toy write touches.
    #[derive(Debug, Default, Serialize, Deserialize)]
    struct Touched(Vec<(String, crate::undo::Kept<u32>)>);

    impl PreImage<Db> for Touched {
        fn restore(&self, db: &mut Db) {
            for (key, kept) in &self.0 {
                kept.restore(db, key);
            }
        }
        fn now(&self, db: &Db) -> Self {
            Self(
                self.0
                    .iter()
                    .map(|(k, _)| (k.clone(), crate::undo::Kept::of(db, k)))
                    .collect(),
            )
        }
        fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
        fn records(&self) -> Vec<String> {
            self.0.iter().map(|(key, _)| key.clone()).collect()
        }
    }

    fn set(store: &Store<Db, Touched>, key: &str, value: u32) -> u32 {
        store
            .write("set", |db, touched| {
                touched
                    .0
                    .push((key.to_owned(), crate::undo::Kept::of(db, key)));
                db.insert(key.to_owned(), value);
                Ok(value)
            })
            .unwrap()
    }

    #[test]
    fn compensations_out_of_the_order_of_the_writes_still_restore_the_database() {
        let db: Db = [("a".to_owned(), 1), ("b".to_owned(), 2)]
            .into_iter()
            .collect();
        let store = Store::<Db, Touched>::new(db.clone());
        // Two calls of one reply, run at once, write record `a`; a third writes `b`.
        set(&store, "a", 10);
        set(&store, "b", 20);
        set(&store, "a", 11);
        // The loop recorded them in another order than they took effect, and rolls back the
        // older write of `a` first.
        store.restore("set", &10.into()).unwrap();
        assert_eq!(
            store.snapshot().unwrap()["b"],
            20,
            "another record is left alone"
        );
        store.restore("set", &11.into()).unwrap();
        store.restore("set", &20.into()).unwrap();
        assert!(store.holds(&db).unwrap());
        assert_eq!(store.writes().unwrap(), (3, 0, 0), "each claimed once");
    }

    #[test]
    fn a_compensation_finds_a_write_whose_output_holds_a_float_read_back_from_text() {
        // τ²'s sums of prices: 218.84000000000015 is read back from the loop's record of the
        // output as 218.84000000000017 unless serde_json parses floats exactly.
        let amount = 218.840_000_000_000_15_f64;
        let store = Store::<Db, Touched>::new(Db::new());
        store
            .write("pay", |db, touched| {
                touched
                    .0
                    .push(("a".to_owned(), crate::undo::Kept::of(db, "a")));
                db.insert("a".to_owned(), 1);
                Ok(serde_json::json!({ "amount": amount }))
            })
            .unwrap();
        let text = serde_json::json!({ "amount": amount }).to_string();
        let received: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(store.restore("pay", &received), Ok(()));
        assert!(store.holds(&Db::new()).unwrap());
    }

    #[test]
    fn a_reopened_log_holds_the_database_and_journal_it_was_left_with() {
        let dir = std::env::temp_dir().join(format!("tau2-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("log.sqlite");
        let db: Db = [("a".to_owned(), 1)].into_iter().collect();
        {
            let store = Store::<Db, Touched>::open(db.clone(), &file).unwrap();
            set(&store, "a", 10);
            set(&store, "c", 30);
            store.restore("set", &30.into()).unwrap();
            set(&store, "a", 11);
        }
        let store = Store::<Db, Touched>::open(db.clone(), &file).unwrap();
        let expected: Db = [("a".to_owned(), 11)].into_iter().collect();
        assert!(store.holds(&expected).unwrap());
        assert_eq!(store.writes().unwrap(), (3, 2, 2));
        store.restore("set", &10.into()).unwrap();
        assert!(store.holds(&db).unwrap());
        assert_eq!(
            store.writes().unwrap(),
            (3, 0, 1),
            "the later write undone unclaimed"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
