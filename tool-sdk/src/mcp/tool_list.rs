//! The server's tool list as a loop's provider sees it: kept between rounds when the server
//! promises to announce changes, listed again when it does.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::ClientConfig;
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::ClientHandler;

use crate::Tool;

/// The client's side of the session: introduces the client, and notes the server's
/// `notifications/tools/list_changed`.
pub(super) struct Watcher {
    pub(super) config: ClientConfig,
    pub(super) list: Arc<ToolList>,
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.list.changed.store(true, Ordering::Release);
        std::future::ready(())
    }
}

/// The last list of the server's tools, and whether the server said it changed since.
pub(super) struct ToolList {
    /// Set by the server's announcement (and at the start): the next round lists again.
    changed: AtomicBool,
    last: Mutex<Option<Vec<Arc<dyn Tool>>>>,
}

impl ToolList {
    pub(super) fn new() -> Self {
        Self {
            changed: AtomicBool::new(true),
            last: Mutex::new(None),
        }
    }

    /// The kept list, unless the server announced a change since it was listed.
    pub(super) fn current(&self) -> Option<Vec<Arc<dyn Tool>>> {
        if self.changed.load(Ordering::Acquire) {
            return None;
        }
        self.last.lock().ok()?.clone()
    }

    /// Called before listing: a change announced while the listing is under way makes the
    /// next round list again.
    pub(super) fn listing(&self) {
        self.changed.store(false, Ordering::Release);
    }

    /// Keeps what was listed.
    pub(super) fn keep(&self, tools: &[Arc<dyn Tool>]) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some(tools.to_vec());
        }
    }

    /// The listing failed: the next round tries again; meanwhile the last list stands.
    pub(super) fn failed(&self) -> Vec<Arc<dyn Tool>> {
        self.changed.store(true, Ordering::Release);
        self.last
            .lock()
            .ok()
            .and_then(|last| last.clone())
            .unwrap_or_default()
    }
}
