//! Decision gating: a person allows or denies risky tool calls before any call of the reply runs.
//!
//! The gate is a stage of the [loop](crate::run::ToolLoop), and usable alone. A
//! [`ConfirmationPolicy`] (with what tools declare themselves, `#[tool(confirm)]`) marks the
//! calls that need a decision. When any call of a reply needs one, [`Gate::execute`] runs
//! **none** of them and returns a [`PausedTurn`] listing the waiting keys
//! ([`tool_call_keys`]). The caller shows the calls to a person and sends back
//! [`ToolCallDecisions`], one per call; the gate checks them (every call decided, keys
//! distinct and known, each allowance bound to the call's [`fingerprint`]) and runs the allowed
//! calls, while a denied call answers the model with its message.
//!
//! The paused reply is a security boundary: whoever can edit it can run any tool with any
//! arguments. So no paused reply handed back is trusted as it is: it is kept server-side in a
//! [`RunStore`] under its id ([`Gate::keep`]), or handed out sealed by a [`Sealer`]; one
//! [`Gate::resume`] takes it from either ([`Kept`]), checks the decisions against that copy
//! before it is used up, and uses it once. [`Gate::resolve`] checks decisions against a turn
//! without running anything.
//!
//! [`PausedTurn`]: crate::store::PausedTurn
//! [`RunStore`]: crate::store::RunStore
//! [`tool_call_keys`]: crate::model::tool_call_keys
#![doc = include_str!("guide.md")]

mod decision;
mod error;
mod fingerprint;
#[allow(clippy::module_inception)]
mod gate;
mod policy;
mod record;
mod resume;
mod seal;
mod visible;

pub use decision::{DecisionsBuilder, ToolCallDecision, ToolCallDecisions, Verdict};
pub use error::{GateError, MIN_KEY_BYTES};
pub use fingerprint::{canonical_arguments, fingerprint};
pub use gate::{CallOutcome, CallResult, EditedRun, Gate, GateOutcome, Resolution};
pub use policy::ConfirmationPolicy;
pub use resume::Kept;
#[cfg(feature = "mcp")]
pub(crate) use seal::SealDomain;
pub use seal::{OpenedTurn, Sealer};
#[cfg(any(feature = "mcp", feature = "approvals"))]
pub(crate) use visible::json;
pub(crate) use visible::warning;
pub use visible::Visible;
#[cfg(feature = "approvals")]
pub(crate) use visible::{code, marker, pieces, Lines, Piece};
