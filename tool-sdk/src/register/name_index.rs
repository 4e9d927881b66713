//! Values by tool name, looked up on every call.
//!
//! A name of up to 16 bytes (most tool names) is keyed by its length and its bytes packed into
//! two words, read with at most four loads: the key hashes in a few multiplications and
//! compares without a call to `memcmp`, which is most of what a lookup by `&str` costs. Longer
//! names are keyed by the string itself. A name longer than every key is answered before it
//! is hashed, so a hostile name of a megabyte costs no more than a short one.
//!
//! A registry of a few tools, the common case, keeps its short names in a list: comparing a
//! key with a handful of others costs less than hashing it.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use rustc_hash::FxBuildHasher;

/// A map from names to values with a fast [`get`](Self::get).
pub(crate) struct NameIndex<V> {
    /// The short names while there are at most [`FEW`] of them; empty after.
    few: Vec<(ShortName, V)>,
    /// The short names once there are more than [`FEW`].
    short: HashMap<ShortName, V, FxBuildHasher>,
    long: HashMap<Box<str>, V, FxBuildHasher>,
    /// Length of the longest key: no longer name can be found.
    longest: usize,
}

impl<V> Default for NameIndex<V> {
    fn default() -> Self {
        Self {
            few: Vec::new(),
            short: HashMap::default(),
            long: HashMap::default(),
            longest: 0,
        }
    }
}

impl<V> NameIndex<V> {
    /// The value of `name`.
    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        match ShortName::of(name) {
            Some(key) if self.short.is_empty() => self
                .few
                .iter()
                .find_map(|(other, value)| (*other == key).then_some(value)),
            key => self.get_hashed(key, name),
        }
    }

    /// The value of `name` in a map: out of line, so that the lookup in a short list, what a
    /// registry of a few tools does on every call, is small enough to be inlined.
    #[inline(never)]
    fn get_hashed(&self, key: Option<ShortName>, name: &str) -> Option<&V> {
        match key {
            Some(key) => self.short.get(&key),
            None if name.len() > self.longest => None,
            None => self.long.get(name),
        }
    }

    /// Whether `name` has a value.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Sets the value of `name`, returning the one it replaces.
    pub(crate) fn insert(&mut self, name: &str, value: V) -> Option<V> {
        self.longest = self.longest.max(name.len());
        match ShortName::of(name) {
            Some(key) => self.insert_short(key, value),
            None => self.long.insert(name.into(), value),
        }
    }

    fn insert_short(&mut self, key: ShortName, value: V) -> Option<V> {
        if !self.short.is_empty() {
            return self.short.insert(key, value);
        }
        if let Some((_, held)) = self.few.iter_mut().find(|(other, _)| *other == key) {
            return Some(std::mem::replace(held, value));
        }
        if self.few.len() < FEW {
            self.few.push((key, value));
            return None;
        }
        self.short.extend(self.few.drain(..));
        self.short.insert(key, value)
    }
}

/// Most short names kept in a list, looked through one by one.
const FEW: usize = 8;

/// A name of at most 16 bytes, exactly: its length, and two words that together cover every
/// byte (they overlap when the name is shorter than 16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ShortName {
    head: u64,
    tail: u64,
    len: u8,
}

/// One word hashed rather than three: the fields are mixed into one first, so that the
/// hasher runs one round, not three. Equal names hash equal; keys are compared whole, so a
/// collision costs a probe and never a wrong answer.
impl Hash for ShortName {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.head ^ self.tail.rotate_left(31) ^ u64::from(self.len) << 56);
    }
}

impl ShortName {
    /// The key of `name`, or `None` when it is longer than 16 bytes.
    #[inline]
    fn of(name: &str) -> Option<Self> {
        let bytes = name.as_bytes();
        let len = bytes.len();
        let (head, tail) = match len {
            // Bytes 0..8 and len-8..len: every byte, for 8 <= len <= 16.
            8..=16 => (word(bytes, 0), word(bytes, len - 8)),
            // Bytes 0..4 and len-4..len: every byte, for 4 <= len < 8.
            4..=7 => (half(bytes, 0), half(bytes, len - 4)),
            // Bytes 0, len/2 and len-1: every byte, for 1 <= len <= 3.
            1..=3 => {
                let pick = |i: usize| u64::from(bytes.get(i).copied().unwrap_or(0));
                (pick(0) | pick(len / 2) << 8 | pick(len - 1) << 16, 0)
            }
            0 => (0, 0),
            _ => return None,
        };
        Some(Self {
            head,
            tail,
            // At most 16: the longer names returned above.
            len: len as u8,
        })
    }
}

/// Eight bytes from `at`, which the caller keeps within `bytes`.
#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    if let Some(source) = bytes.get(at..at + 8) {
        word.copy_from_slice(source);
    }
    u64::from_le_bytes(word)
}

/// Four bytes from `at`, which the caller keeps within `bytes`.
#[inline]
fn half(bytes: &[u8], at: usize) -> u64 {
    let mut half = [0; 4];
    if let Some(source) = bytes.get(at..at + 4) {
        half.copy_from_slice(source);
    }
    u64::from(u32::from_le_bytes(half))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_long_and_empty_names_are_found() {
        let mut index = NameIndex::default();
        let names = [
            "",
            "a",
            "ab",
            "abc",
            "add",
            "abcd",
            "get_weather",
            "search_flights_v2",
        ];
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.insert(name, i), None);
        }
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some(&i), "{name:?}");
        }
        assert_eq!(index.get("ad"), None);
        assert_eq!(index.get("addd"), None);
        assert_eq!(index.get("get_weathe"), None);
        assert_eq!(index.get("search_flights_v3"), None);
        assert_eq!(index.insert("add", 99), Some(4));
        assert!(index.contains("add"));
        assert_eq!(index.get(&"search_flights_v2".repeat(1000)), None);
    }

    #[test]
    fn a_trailing_zero_byte_is_another_name() {
        let mut index = NameIndex::default();
        index.insert("add", 1);
        assert_eq!(index.get("add\0"), None);
        assert_eq!(index.get("ad\0"), None);
        assert_eq!(index.get("\0add"), None);
    }

    proptest! {
        /// Two names get the same key exactly when they are the same name.
        #[test]
        fn keys_are_equal_only_for_equal_names(
            a in "[a-c_\\x00]{0,18}",
            b in "[a-c_\\x00]{0,18}",
        ) {
            match (ShortName::of(&a), ShortName::of(&b)) {
                (Some(x), Some(y)) => prop_assert_eq!(x == y, a == b),
                (x, y) => prop_assert!(x.is_none() && a.len() > 16 || y.is_none() && b.len() > 16),
            }
        }

        /// The index answers like a `HashMap<String, _>` for any set of names.
        #[test]
        fn the_index_agrees_with_a_hash_map(
            names in prop::collection::vec("[a-d_]{0,20}", 0..40),
            queries in prop::collection::vec("[a-d_]{0,20}", 0..40),
        ) {
            let mut index = NameIndex::default();
            let mut map = std::collections::HashMap::new();
            for (i, name) in names.iter().enumerate() {
                prop_assert_eq!(index.insert(name, i), map.insert(name.clone(), i));
            }
            for query in names.iter().chain(&queries) {
                prop_assert_eq!(index.get(query), map.get(query));
            }
        }
    }
}
