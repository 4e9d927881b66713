//! A call's progress as the loop's events: each report a [`LoopEvent::ToolProgress`].

use std::sync::Arc;

use crate::define::{ProgressSink, ProgressUpdate};
use crate::run::tool_loop::Listener;
use crate::run::LoopEvent;

/// Where the progress of the call with `key` goes: the loop's listener.
pub(crate) struct LoopProgress {
    listener: Arc<Listener>,
    key: String,
}

impl LoopProgress {
    /// The sink of the call with `key`, as the context takes it.
    pub(crate) fn sink(listener: &Arc<Listener>, key: &str) -> Arc<dyn ProgressSink> {
        Arc::new(Self {
            listener: Arc::clone(listener),
            key: key.to_owned(),
        })
    }
}

impl ProgressSink for LoopProgress {
    fn progress(&self, tool: &str, _call_id: Option<&str>, update: ProgressUpdate) {
        (self.listener)(&LoopEvent::ToolProgress {
            key: self.key.clone(),
            name: tool.to_owned(),
            update,
        });
    }
}
