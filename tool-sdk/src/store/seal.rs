//! Rows sealed at rest: what a durable store keeps that could make a tool run — a paused turn
//! (the calls a person will allow) and each compensation record entry (the call its
//! compensating action undoes) — carries an HMAC-SHA256 of the application's key, bound to
//! its run (and a paused turn to its pause, under a format version), so a row edited in the
//! database, or moved from another run or pause, is refused on load.
//!
//! A seal cannot tell a row from an older copy of itself: what a pause consumed is kept apart
//! from its row, by each store, so that a row put back is refused too.

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::store::StoreError;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// Separates these MACs from any other use of the same key (the gate's tokens among them).
const DOMAIN: &[u8] = b"tool-sdk/at-rest/v1\n";

/// What a sealed row starts with. Rows are JSON objects, so an unsealed one never does.
const PREFIX: &str = "sealed1.";

/// What a paused turn sealed with its pause identity starts with: the seal's format version 2.
/// Version 1 bound a paused turn to its run alone; such rows are still read (their text names
/// their pause, which the store checks), and never written.
const PAUSED_PREFIX: &str = "sealed2.";

/// The seal a durable store puts on each paused turn and compensation record entry it writes,
/// and checks on each it reads: a row edited in the database, moved from another run, written
/// without a seal, or sealed with another key is refused with
/// [`StoreError::Tampered`], and nothing runs from it.
///
/// It is made from the gate's [`Sealer`](crate::gate::Sealer), under the same key
/// ([`Sealer::row_seal`](crate::gate::Sealer::row_seal)), and given to the store
/// (`SqliteStore::with_row_seal`, `PostgresStore::with_row_seal`). Every process sharing a
/// store needs the same key. Rows written before a store was given a seal are refused once it
/// has one: seal from the first run on.
///
/// What a seal cannot stop: whoever can write the database can still delete rows, or mark an
/// entry rolled back; it keeps them from changing what runs. A paused turn put back after it
/// was taken is refused by the store, which keeps what each pause consumed apart from the
/// row (docs/GUARANTEES.md says what a database writer can and cannot do).
#[derive(Clone)]
pub struct RowSeal {
    /// Keyed once; cloned for each row.
    mac: HmacSha256,
}

/// Which row a seal is bound to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Row<'a> {
    /// The paused turn of run `run`, waiting at pause `pause`.
    Paused { run: &'a str, pause: &'a str },
    /// The entry with idempotency key `key` in the record of run `run`.
    Entry { run: &'a str, key: &'a str },
}

impl Row<'_> {
    fn run(&self) -> &str {
        match self {
            Row::Paused { run, .. } | Row::Entry { run, .. } => run,
        }
    }

    fn what(&self) -> &'static str {
        match self {
            Row::Paused { .. } => "paused turn",
            Row::Entry { .. } => "compensation record entry",
        }
    }
}

impl RowSeal {
    /// A seal keyed like `mac` (the gate's sealer).
    pub(crate) fn from_mac(mac: HmacSha256) -> Self {
        Self { mac }
    }

    /// The MAC of `row` with `text`, in the seal format its prefix names.
    fn tag(&self, row: Row<'_>, prefix: &str, text: &str) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(DOMAIN);
        let parts: &[&str] = match &row {
            Row::Paused { run, pause } if prefix == PAUSED_PREFIX => {
                &["paused", "2", run, pause, text]
            }
            Row::Paused { run, .. } => &["paused", run, text],
            Row::Entry { run, key } => &["entry", run, key, text],
        };
        // Each part with its length first, so no two different rows read the same bytes.
        for part in parts {
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part.as_bytes());
        }
        mac
    }
}

/// `text` as a store keeps it for `row`: sealed when there is a seal.
pub(crate) fn seal(seal: Option<&RowSeal>, row: Row<'_>, text: String) -> String {
    match seal {
        None => text,
        Some(seal) => {
            let prefix = match row {
                Row::Paused { .. } => PAUSED_PREFIX,
                Row::Entry { .. } => PREFIX,
            };
            let tag = seal.tag(row, prefix, &text).finalize().into_bytes();
            format!("{prefix}{}.{text}", URL_SAFE_NO_PAD.encode(tag))
        }
    }
}

/// The text of `row` as a store kept it, once its seal is checked.
pub(crate) fn open<'t>(
    seal: Option<&RowSeal>,
    row: Row<'_>,
    stored: &'t str,
) -> Result<&'t str, StoreError> {
    let tampered = |reason: &'static str| StoreError::Tampered {
        run: row.run().to_owned(),
        what: row.what(),
        reason,
    };
    let paused_v2 = match row {
        Row::Paused { .. } => stored.strip_prefix(PAUSED_PREFIX),
        Row::Entry { .. } => None,
    };
    let (prefix, sealed) = match paused_v2 {
        Some(sealed) => (PAUSED_PREFIX, Some(sealed)),
        None => (PREFIX, stored.strip_prefix(PREFIX)),
    };
    let (Some(seal), Some(sealed)) = (seal, sealed) else {
        return match (seal, sealed) {
            (None, None) => Ok(stored),
            (None, Some(_)) => Err(tampered(
                "it is sealed, and this store has no seal to check it",
            )),
            (Some(_), _) => Err(tampered("it carries no seal")),
        };
    };
    let (tag, text) = sealed
        .split_once('.')
        .ok_or_else(|| tampered("its seal is malformed"))?;
    let tag = URL_SAFE_NO_PAD
        .decode(tag)
        .map_err(|_| tampered("its seal is malformed"))?;
    // Constant-time comparison.
    seal.tag(row, prefix, text)
        .verify_slice(&tag)
        .map_err(|_| tampered("its seal does not match it"))?;
    Ok(text)
}

impl fmt::Debug for RowSeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RowSeal")
            .field("key", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_seal(key: u8) -> RowSeal {
        RowSeal::from_mac(<HmacSha256 as Mac>::new_from_slice(&[key; 32]).unwrap())
    }

    const TURN: &str = r#"{"pay":5}"#;

    #[test]
    fn a_sealed_row_opens_to_what_was_sealed() {
        let seal = row_seal(1);
        let row = Row::Paused {
            run: "r1",
            pause: "p1",
        };
        let stored = super::seal(Some(&seal), row, TURN.to_owned());
        assert!(stored.starts_with(PAUSED_PREFIX));
        assert_eq!(open(Some(&seal), row, &stored).unwrap(), TURN);
    }

    #[test]
    fn an_edited_moved_unsealed_or_foreign_row_is_refused() {
        let seal = row_seal(1);
        let row = Row::Entry {
            run: "r1",
            key: "r1:1:a",
        };
        let stored = super::seal(Some(&seal), row, TURN.to_owned());
        let edited = stored.replace("5", "500");
        let refusals = [
            open(Some(&seal), row, &edited),
            open(
                Some(&seal),
                Row::Entry {
                    run: "r2",
                    key: "r1:1:a",
                },
                &stored,
            ),
            open(
                Some(&seal),
                Row::Entry {
                    run: "r1",
                    key: "r1:1:b",
                },
                &stored,
            ),
            open(
                Some(&seal),
                Row::Paused {
                    run: "r1",
                    pause: "p1",
                },
                &stored,
            ),
            open(Some(&seal), row, TURN),
            open(Some(&row_seal(2)), row, &stored),
            open(None, row, &stored),
            open(Some(&seal), row, "sealed1.no-dot"),
        ];
        for refused in refusals {
            assert!(
                matches!(refused, Err(StoreError::Tampered { .. })),
                "{refused:?}"
            );
        }
        // Without a seal, rows are kept and read as they are.
        assert_eq!(open(None, row, TURN).unwrap(), TURN);
    }

    #[test]
    fn a_paused_turn_is_bound_to_its_pause_and_the_format_version() {
        let seal = row_seal(1);
        let row = Row::Paused {
            run: "r1",
            pause: "p1",
        };
        let stored = super::seal(Some(&seal), row, TURN.to_owned());
        let other_pause = Row::Paused {
            run: "r1",
            pause: "p2",
        };
        assert!(matches!(
            open(Some(&seal), other_pause, &stored),
            Err(StoreError::Tampered { .. })
        ));
        // The same MAC under the first format's prefix reads as another row.
        let relabelled = stored.replacen(PAUSED_PREFIX, PREFIX, 1);
        assert!(matches!(
            open(Some(&seal), row, &relabelled),
            Err(StoreError::Tampered { .. })
        ));
        // A row of the first format, written before the pause was bound, still opens.
        let tag = seal.tag(row, PREFIX, TURN).finalize().into_bytes();
        let legacy = format!("{PREFIX}{}.{TURN}", URL_SAFE_NO_PAD.encode(tag));
        assert_eq!(open(Some(&seal), row, &legacy).unwrap(), TURN);
    }
}
