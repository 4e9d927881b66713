//! Compensation (saga rollback): what succeeded is recorded, and rolled back newest first, each
//! exactly once, when a later step fails or the run is cancelled.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::catch::{start_caught, CatchPanic};
use crate::{Tool, ToolCall, ToolContext, ToolError, ToolOutput};

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
}

impl RecordEntry {
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

    /// Records a success; gives its sequence number.
    pub(crate) fn push(
        &mut self,
        round: usize,
        key: String,
        call: ToolCall,
        output: &ToolOutput,
        message_index: usize,
    ) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.entries.push(RecordEntry {
            seq,
            round,
            key,
            call,
            output: output.content().to_owned(),
            output_is_json: output.is_json(),
            message_index,
        });
        seq
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

/// How one rollback went.
#[derive(Debug, Clone)]
pub struct CompensationReport {
    /// The call's key in its reply.
    pub key: String,
    /// The tool.
    pub name: String,
    /// The round the call ran in.
    pub round: usize,
    /// `Ok` when the compensating action succeeded.
    pub result: Result<(), ToolError>,
}

/// Runs one entry's compensating action, with panics contained.
pub(crate) async fn compensate_one(
    tool: Option<&Arc<dyn Tool>>,
    entry: &RecordEntry,
    run_id: &str,
) -> Result<(), ToolError> {
    let name = entry.call.name.as_str();
    let Some(tool) = tool else {
        return Err(ToolError::failed(
            name,
            "the tool is no longer available to compensate",
        ));
    };
    let output = entry.output();
    // A stable idempotency key: the same entry of the same run always gets the same one.
    let idempotency_key = format!("{run_id}:{}:{}", entry.round, entry.key);
    let context = ToolContext::new()
        .with_call_id(&idempotency_key)
        .with_tool_name(name);
    let future = start_caught(name, || {
        match tool.compensate(&entry.call.arguments, &output, context) {
            Some(future) => future,
            None => crate::ToolFuture::ready(Err(ToolError::failed(
                name,
                "the tool has no compensating action",
            ))),
        }
    });
    let result = match future.into_ready() {
        Ok(result) => result,
        Err(pending) => CatchPanic::new(name, pending).await,
    };
    result.map(|_| ())
}
