//! A registered tool as the registry keeps it for dispatch: what a call needs at hand, in one
//! place both the registry (which fills it) and a call (which borrows it) name.

use std::sync::Arc;
use std::time::Duration;

use crate::define::Tool;
use crate::register::output_check::OutputCheck;

/// A registered tool with what a call of it needs at hand; a call borrows it whole.
pub(crate) struct Slot {
    pub(crate) name: Box<str>,
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) timeout: Option<Duration>,
    /// The check of what the tool returns against its output schema: nothing, and no
    /// bytes, in a release build.
    pub(crate) output: OutputCheck,
}
