//! The server's tool list as a loop's provider sees it: kept between rounds when the server
//! promises to announce changes, listed again when it does, when a request to it fails, or
//! after a minute.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};

use super::elicitation::Answerer;

use crate::define::Tool;

/// The client's side of the session: introduces the client, notes the server's
/// `notifications/tools/list_changed`, hands its `notifications/progress` to the calls that
/// asked for them, and its elicitation requests to the application.
pub(super) struct Watcher {
    pub(super) config: ClientConfig,
    pub(super) list: Arc<ToolList>,
    pub(super) progress: ProgressDispatcher,
    /// The application's answers to the server's elicitation requests, when it gave any.
    pub(super) elicitation: Option<Answerer>,
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.list.invalidate();
        std::future::ready(())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(match &self.elicitation {
            Some(answerer) => answerer.answer(request).await,
            // Declared no elicitation: a server that asks anyway is declined.
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.handle_notification(params).await;
    }
}

/// The last list of the server's tools, and the announcements it has seen.
///
/// Every announcement starts a new generation; a list is kept with the generation it was
/// asked for in, and serves only while no later announcement came. So a slow listing that
/// started before an announcement can never stand in for one made after it.
pub(super) struct ToolList {
    generation: AtomicU64,
    last: Mutex<Option<Kept>>,
}

struct Kept {
    generation: u64,
    listed_at: Instant,
    tools: Vec<Arc<dyn Tool>>,
}

/// How long a kept list serves at most, announcements or not: a server can restart with
/// other tools (an HTTP client may start a new session with it on its own) without
/// announcing anything to this session.
const MAX_AGE: Duration = Duration::from_secs(60);

impl ToolList {
    pub(super) fn new() -> Self {
        Self {
            generation: AtomicU64::new(0),
            last: Mutex::new(None),
        }
    }

    /// The server announced a change, or a request to it failed: the next round lists again.
    pub(super) fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The kept list, when no announcement came since it was asked for and it is recent.
    pub(super) fn current(&self) -> Option<Vec<Arc<dyn Tool>>> {
        let generation = self.generation.load(Ordering::Acquire);
        let last = self.last.lock().ok()?;
        let kept = last.as_ref()?;
        (kept.generation == generation && kept.listed_at.elapsed() < MAX_AGE)
            .then(|| kept.tools.clone())
    }

    /// Called before listing: the generation the listing answers for.
    pub(super) fn listing(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Keeps what a listing started in `generation` returned, unless a listing started later
    /// was kept already.
    pub(super) fn keep(&self, generation: u64, tools: &[Arc<dyn Tool>]) {
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last
            .as_ref()
            .is_some_and(|kept| kept.generation > generation)
        {
            return;
        }
        *last = Some(Kept {
            generation,
            listed_at: Instant::now(),
            tools: tools.to_vec(),
        });
    }

    /// The last list kept (none at first), for a round whose listing failed.
    pub(super) fn last(&self) -> Vec<Arc<dyn Tool>> {
        self.last
            .lock()
            .ok()
            .and_then(|last| last.as_ref().map(|kept| kept.tools.clone()))
            .unwrap_or_default()
    }
}
