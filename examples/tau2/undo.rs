//! What a write changed, kept so that its compensation restores exactly that.
//!
//! τ²'s domains have no inverse tools (cancelling a reservation does not undo booking it), so a
//! write's compensation cannot call another tool: each write tool keeps the **pre-image** of
//! every record it touches, in the journal beside the database (under the same lock, so the
//! change and its pre-image are one step), and its compensation puts those records back.
//!
//! A compensating action receives the call's arguments and output, so the journal finds an
//! entry by its tool and output. Calls whose outputs are equal are undone newest first (the
//! loop rolls back newest first), and each entry once: the action's idempotency key marks it,
//! and the same key again finds it undone and changes nothing.

use serde::Serialize;
use serde_json::Value;

/// Pre-images of the writes that succeeded, oldest first.
#[derive(Debug)]
pub(crate) struct Journal<P> {
    entries: Vec<Entry<P>>,
}

#[derive(Debug)]
struct Entry<P> {
    tool: &'static str,
    output: Value,
    before: P,
    undone_by: Option<String>,
}

impl<P> Default for Journal<P> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<P> Journal<P> {
    /// Keeps `before`, the pre-image of the write `tool` made, which returned `output`.
    pub(crate) fn record(
        &mut self,
        tool: &'static str,
        output: &impl Serialize,
        before: P,
    ) -> Result<(), String> {
        let output = serde_json::to_value(output).map_err(|error| error.to_string())?;
        self.entries.push(Entry {
            tool,
            output,
            before,
            undone_by: None,
        });
        Ok(())
    }

    /// The pre-image of the newest write of `tool` that returned `output` and is not undone
    /// yet, marked undone by `key`; `Ok(None)` when `key` undid it already.
    pub(crate) fn take(
        &mut self,
        tool: &str,
        output: &Value,
        key: Option<String>,
    ) -> Result<Option<&P>, String> {
        let same = |entry: &&mut Entry<P>| entry.tool == tool && entry.output == *output;
        if let Some(key) = &key {
            if self
                .entries
                .iter_mut()
                .any(|entry| same(&entry) && entry.undone_by.as_ref() == Some(key))
            {
                return Ok(None);
            }
        }
        let entry = self
            .entries
            .iter_mut()
            .rev()
            .find(|entry| same(entry) && entry.undone_by.is_none())
            .ok_or_else(|| format!("no write of {tool} with this output is left to undo"))?;
        entry.undone_by = Some(key.unwrap_or_default());
        Ok(Some(&entry.before))
    }
}

/// One map entry as it was: where it stood and what it held, or that it was not there.
#[derive(Debug, Clone)]
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
    fn equal_outputs_are_undone_newest_first_and_each_key_once() {
        let mut journal = Journal::default();
        let output = serde_json::json!({"id": "R1"});
        journal.record("update", &output, "first").unwrap();
        journal.record("other", &output, "other tool").unwrap();
        journal.record("update", &output, "second").unwrap();

        let newest = journal.take("update", &output, Some("run:3:c3".into()));
        assert_eq!(newest, Ok(Some(&"second")));
        // The same action again (a repeated rollback) changes nothing.
        assert_eq!(
            journal.take("update", &output, Some("run:3:c3".into())),
            Ok(None)
        );
        let older = journal.take("update", &output, Some("run:1:c1".into()));
        assert_eq!(older, Ok(Some(&"first")));
        assert!(journal
            .take("update", &output, Some("run:9:c9".into()))
            .is_err());
        let other = serde_json::json!({"id": "R2"});
        assert!(journal.take("other", &other, None).is_err());
        assert_eq!(
            journal.take("other", &output, None),
            Ok(Some(&"other tool"))
        );
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
