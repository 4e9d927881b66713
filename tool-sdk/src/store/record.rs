//! The compensation record of a run: which compensable calls succeeded, in order, and how each
//! rollback ended. The loop writes it ahead (before it goes on); recovery reads it back.

use serde::{Deserialize, Serialize};

use crate::define::ToolOutput;
use crate::model::ToolCall;

/// How many times in all a compensating action that times out is tried (the first attempt
/// included), each time with the same idempotency key, before it is reported failed for good.
pub const MAX_COMPENSATION_ATTEMPTS: u32 = 3;

/// One successful call of a compensable tool, kept until the run ends or rolls back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordEntry {
    /// Order of success within the run (rollback goes from the highest down).
    pub seq: u64,
    /// The round the call ran in (1-based).
    pub round: usize,
    /// The call's key in its reply.
    pub key: String,
    /// The call as the model gave it.
    pub call: ToolCall,
    /// The tool's output (what the compensating action receives).
    pub output: String,
    /// Whether `output` is JSON.
    pub output_is_json: bool,
    /// Where the call's result sits in the conversation, to be rewritten on rollback.
    pub message_index: usize,
    /// What the compensating action receives as its call id: the same for this entry in
    /// every attempt, in any process, so a repeated rollback can be recognised.
    pub idempotency_key: String,
    /// Attempts of its compensating action that timed out so far (recovery tries again while
    /// fewer than [`MAX_COMPENSATION_ATTEMPTS`]).
    #[serde(default)]
    pub attempts: u32,
}

impl RecordEntry {
    /// An entry for the success of `call`, keyed `key` in round `round` of run `run_id`; its
    /// sequence number is given when it joins a record.
    pub(crate) fn new(
        run_id: &str,
        round: usize,
        key: String,
        call: ToolCall,
        output: &ToolOutput,
        message_index: usize,
    ) -> Self {
        Self {
            seq: 0,
            idempotency_key: format!("{run_id}:{round}:{key}"),
            round,
            key,
            call,
            output: output.content().to_owned(),
            output_is_json: output.is_json(),
            message_index,
            attempts: 0,
        }
    }

    pub(crate) fn output(&self) -> ToolOutput {
        if self.output_is_json {
            ToolOutput::json(self.output.clone())
        } else {
            ToolOutput::text(self.output.clone())
        }
    }
}

/// The successful compensable calls of a run, in the order they succeeded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompensationRecord {
    entries: Vec<RecordEntry>,
    next_seq: u64,
}

impl CompensationRecord {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether nothing was ever recorded (not merely drained): such a record need not be kept.
    pub(crate) fn is_untouched(&self) -> bool {
        self.entries.is_empty() && self.next_seq == 0
    }

    /// Records a success, numbering it after every earlier one.
    pub(crate) fn push(&mut self, mut entry: RecordEntry) {
        entry.seq = self.next_seq;
        self.next_seq += 1;
        self.entries.push(entry);
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[RecordEntry] {
        &self.entries
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Takes every entry out, newest first, leaving the record empty: nothing can be
    /// compensated twice.
    pub(crate) fn drain_newest_first(&mut self) -> Vec<RecordEntry> {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.seq));
        entries
    }
}

/// How a compensation ended, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compensated {
    /// The compensating action succeeded: the call's effect no longer holds.
    Done,
    /// It failed with this message; the entry stays recorded as failed, not tried again.
    Failed(String),
    /// It timed out, for the `attempts`-th time: it may still have taken effect, so recovery
    /// tries it again (with the same idempotency key) while fewer than
    /// [`MAX_COMPENSATION_ATTEMPTS`].
    TimedOut {
        /// Attempts so far, all timed out.
        attempts: u32,
    },
}

impl Compensated {
    /// The text the SQL stores keep: `done`, `failed: MESSAGE` or `timed out: ATTEMPTS`.
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn to_column(&self) -> String {
        match self {
            Self::Done => "done".to_owned(),
            Self::Failed(message) => format!("failed: {message}"),
            Self::TimedOut { attempts } => format!("{TIMED_OUT_PREFIX}{attempts}"),
        }
    }

    /// The timed-out attempts a stored outcome says an entry still pending has had; `None`
    /// when it is done or failed for good (not pending).
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn pending_attempts(column: Option<&str>) -> Option<u32> {
        match column {
            None => Some(0),
            Some(text) => text
                .strip_prefix(TIMED_OUT_PREFIX)
                .map(|n| n.parse().unwrap_or(MAX_COMPENSATION_ATTEMPTS)),
        }
    }
}

/// How a timed-out compensation is written in the SQL stores' text column.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) const TIMED_OUT_PREFIX: &str = "timed out: ";
