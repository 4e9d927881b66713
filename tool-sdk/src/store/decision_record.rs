//! A person's decision on one call of a paused run, as the run keeps it: who decided, when, on
//! which call as it stood (its fingerprint), and what. Kept with the run's state, in every store
//! and sealed with it, and handed out in the run's outcome.

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::store::PauseId;

/// One decision a run was resumed with, on a call that waited for it.
///
/// The decider is who the decisions said decided
/// ([`ToolCallDecisions::with_decider`](crate::gate::ToolCallDecisions::with_decider)): the
/// identity the approval page's check gave (`local` on this machine's loopback), the loop's
/// terminal, an approver, or whoever the application names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DecisionRecord {
    /// The pause it was made for.
    pub pause: PauseId,
    /// The call's key in its reply.
    pub key: String,
    /// The call's tool.
    pub tool: String,
    /// The fingerprint of the call as the person saw it
    /// ([`fingerprint`](crate::gate::fingerprint)): an allowance ran exactly this.
    pub fingerprint: String,
    /// Whether the call was allowed.
    pub allowed: bool,
    /// What the model was told of a denial; `None` for an allowance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The arguments the call ran with, when the person changed the model's before allowing
    /// it (JSON text): the call as seen is [`fingerprint`](Self::fingerprint), the call as run
    /// is [`edited_fingerprint`](Self::edited_fingerprint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_arguments: Option<String>,
    /// The fingerprint of the call as it ran with the person's arguments, when they changed
    /// them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_fingerprint: Option<String>,
    /// Who decided, when the decisions said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decider: Option<String>,
    /// When the run was resumed with it.
    pub decided_at: SystemTime,
}
