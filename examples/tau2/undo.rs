//! What a write changed, kept so that its compensation restores exactly that.
//!
//! τ²'s domains have no inverse tools (cancelling a reservation does not undo booking it), so a
//! write's compensation cannot call another tool: each write tool keeps the **pre-image** of
//! every record it touches, in the journal beside the database (under the same lock, so the
//! change and its pre-image are one step), and its compensation puts those records back.
//!
//! A compensating action receives the call's arguments and output, so the journal finds an
//! entry by its tool and output. Calls whose outputs are equal are claimed newest first (the
//! loop rolls back newest first), and each entry once: the action's idempotency key claims
//! it, and the same key again finds it claimed and changes nothing.
//!
//! Pre-images are only right when put back in the reverse of the order the writes took
//! effect. The journal holds that order, so it keeps it whatever order the compensations come
//! in: undoing a write first undoes every later write not undone yet that touched one of its
//! records (and so on, for the records those touched), newest first. That covers a reply whose
//! calls ran at once and were recorded in another order than they took effect, and a write
//! whose process died before the loop recorded it (`kill.rs`); a later write of other records
//! is left alone.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Pre-images of the writes that succeeded, oldest first.
#[derive(Debug)]
pub(crate) struct Journal<P> {
    entries: Vec<Entry<P>>,
}

#[derive(Debug)]
struct Entry<P> {
    tool: String,
    output: Value,
    before: P,
    /// The records the write touched, to find the later writes of the same records.
    records: Vec<String>,
    /// Whether its pre-image was put back.
    undone: bool,
    /// The compensation that claimed it, by idempotency key.
    claimed_by: Option<String>,
}

impl<P> Default for Journal<P> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<P> Journal<P> {
    /// Keeps `before`, the pre-image of the write `tool` made to `records`, which returned
    /// `output`.
    pub(crate) fn record(&mut self, tool: &str, output: Value, before: P, records: Vec<String>) {
        self.entries.push(Entry {
            tool: tool.to_owned(),
            output,
            before,
            records,
            undone: false,
            claimed_by: None,
        });
    }

    /// Which entry the compensation keyed `key` of the write of `tool` that returned
    /// `output` claims: the newest such write no compensation claimed yet; `Ok(None)` when
    /// `key` claimed one already.
    pub(crate) fn find(
        &self,
        tool: &str,
        output: &Value,
        key: Option<&str>,
    ) -> Result<Option<usize>, String> {
        let same = |entry: &Entry<P>| entry.tool == tool && entry.output == *output;
        if key.is_some()
            && self
                .entries
                .iter()
                .any(|entry| same(entry) && entry.claimed_by.as_deref() == key)
        {
            return Ok(None);
        }
        self.entries
            .iter()
            .rposition(|entry| same(entry) && entry.claimed_by.is_none())
            .map(Some)
            .ok_or_else(|| format!("no write of {tool} with this output is left to undo"))
    }

    /// What undoing entry `index` undoes, in order: every later entry not undone yet that
    /// touched one of its records (or of theirs), newest first, then it; nothing when it is
    /// undone already.
    pub(crate) fn plan(&self, index: usize) -> Vec<usize> {
        let Some(entry) = self.entries.get(index).filter(|entry| !entry.undone) else {
            return Vec::new();
        };
        let mut records: BTreeSet<&str> = entry.records.iter().map(String::as_str).collect();
        let mut plan = vec![index];
        for (later, entry) in self.entries.iter().enumerate().skip(index + 1) {
            if !entry.undone && entry.records.iter().any(|r| records.contains(r.as_str())) {
                records.extend(entry.records.iter().map(String::as_str));
                plan.push(later);
            }
        }
        plan.reverse();
        plan
    }

    /// Marks entry `index` undone; its pre-image, to put back.
    pub(crate) fn undo(&mut self, index: usize) -> Result<&P, String> {
        let entry = self
            .entries
            .get_mut(index)
            .ok_or_else(|| format!("the journal has no write {index}"))?;
        if entry.undone {
            return Err(format!("write {index} was undone already"));
        }
        entry.undone = true;
        Ok(&entry.before)
    }

    /// Marks entry `index` claimed by the compensation keyed `key`.
    pub(crate) fn claim(&mut self, index: usize, key: &str) -> Result<(), String> {
        let entry = self
            .entries
            .get_mut(index)
            .ok_or_else(|| format!("the journal has no write {index}"))?;
        if let Some(by) = &entry.claimed_by {
            return Err(format!("write {index} was claimed already, by {by}"));
        }
        entry.claimed_by = Some(key.to_owned());
        Ok(())
    }

    /// The entries not undone yet, newest first.
    pub(crate) fn pending(&self) -> Vec<usize> {
        (0..self.entries.len())
            .rev()
            .filter(|&index| !self.entries[index].undone)
            .collect()
    }

    /// How many writes the journal holds, and how many no compensation claimed.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let unclaimed = self.entries.iter().filter(|e| e.claimed_by.is_none());
        (self.entries.len(), unclaimed.count())
    }
}

/// One map entry as it was: where it stood and what it held, or that it was not there.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Kept<V>(Option<(usize, V)>);

impl<V: Clone> Kept<V> {
    /// The entry `key` of `map` as it is now.
    pub(crate) fn of(map: &indexmap::IndexMap<String, V>, key: &str) -> Self {
        Self(
            map.get_full(key)
                .map(|(index, _, value)| (index, value.clone())),
        )
    }

    /// Puts the entry `key` of `map` back as it was, at its place.
    pub(crate) fn restore(&self, map: &mut indexmap::IndexMap<String, V>, key: &str) {
        match &self.0 {
            None => {
                map.shift_remove(key);
            }
            Some((index, value)) => match map.get_mut(key) {
                Some(slot) => *slot = value.clone(),
                None => {
                    map.shift_insert((*index).min(map.len()), key.to_owned(), value.clone());
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_outputs_are_claimed_newest_first_and_each_key_once() {
        let mut journal = Journal::default();
        let output = serde_json::json!({"id": "R1"});
        let r1 = || vec!["R1".to_owned()];
        journal.record("update", output.clone(), "first", r1());
        journal.record("other", output.clone(), "other tool", vec!["R2".into()]);
        journal.record("update", output.clone(), "second", r1());

        let newest = journal.find("update", &output, Some("run:3:c3"));
        assert_eq!(newest, Ok(Some(2)));
        assert_eq!(journal.plan(2), [2]);
        assert_eq!(journal.undo(2), Ok(&"second"));
        assert_eq!(journal.claim(2, "run:3:c3"), Ok(()));
        // The same action again (a repeated rollback) changes nothing.
        assert_eq!(journal.find("update", &output, Some("run:3:c3")), Ok(None));
        assert!(journal.undo(2).is_err());
        assert!(journal.claim(2, "run:9:c9").is_err());
        assert_eq!(
            journal.find("update", &output, Some("run:1:c1")),
            Ok(Some(0))
        );
        let other = serde_json::json!({"id": "R2"});
        assert!(journal.find("other", &other, None).is_err());
        assert_eq!(journal.pending(), [1, 0]);
        assert_eq!(journal.counts(), (3, 2));
    }

    #[test]
    fn undoing_a_write_first_undoes_the_later_writes_of_its_records() {
        let mut journal = Journal::default();
        let records = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect();
        journal.record("a", Value::Null, 0, records(&["R1"]));
        journal.record("b", Value::Null, 1, records(&["R2"]));
        journal.record("c", Value::Null, 2, records(&["R1", "U1"]));
        journal.record("d", Value::Null, 3, records(&["U1"]));
        journal.record("e", Value::Null, 4, records(&["R3"]));
        // `c` shares R1 with `a`; `d` shares U1 with `c`; `b` and `e` touch other records.
        assert_eq!(journal.plan(0), [3, 2, 0]);
        assert_eq!(journal.undo(3), Ok(&3));
        assert_eq!(journal.plan(0), [2, 0]);
        assert_eq!(journal.plan(3), Vec::<usize>::new());
    }

    #[test]
    fn a_kept_entry_goes_back_to_its_place_or_away() {
        let mut map: indexmap::IndexMap<String, u8> =
            [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]
                .into_iter()
                .collect();
        let (b, new) = (Kept::of(&map, "b"), Kept::of(&map, "new"));
        map.shift_remove("b");
        map.insert("new".into(), 9);
        map.insert("c".into(), 30);
        b.restore(&mut map, "b");
        new.restore(&mut map, "new");
        let restored: Vec<(&str, u8)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(restored, [("a", 1), ("b", 2), ("c", 30)]);
    }
}
