//! A served call's progress as `notifications/progress`, when its request carries a progress
//! token: reports go out in order, on a task started by the first of them (rmcp's clients put
//! a token on every request, and most tools report nothing), all before the call's result.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};
use rmcp::RoleServer;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::define::{ProgressSink, ProgressUpdate};

/// The progress of one call going to its client.
pub(super) struct Forwarding {
    target: Arc<Target>,
    sink: Arc<dyn ProgressSink>,
}

struct Target {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    state: Mutex<State>,
}

enum State {
    /// Nothing reported yet.
    Idle,
    /// Reports going out through the task.
    Sending(mpsc::UnboundedSender<ProgressUpdate>, JoinHandle<()>),
    /// The call ended: MCP has no progress after the result.
    Ended,
}

impl ProgressSink for Target {
    fn progress(&self, _tool: &str, _call_id: Option<&str>, update: ProgressUpdate) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*state, State::Idle) {
            let (sender, reports) = mpsc::unbounded_channel();
            let task = tokio::spawn(forward(self.peer.clone(), self.token.clone(), reports));
            *state = State::Sending(sender, task);
        }
        if let State::Sending(sender, _) = &*state {
            let _ = sender.send(update);
        }
    }
}

impl Forwarding {
    /// Forwarding for the call of `context`, when its request asked for progress.
    pub(super) fn start(context: &RequestContext<RoleServer>) -> Option<Self> {
        let token = context.meta.get_progress_token()?;
        let target = Arc::new(Target {
            peer: context.peer.clone(),
            token,
            state: Mutex::new(State::Idle),
        });
        let sink: Arc<dyn ProgressSink> = target.clone();
        Some(Self { target, sink })
    }

    /// Where the call's context sends its reports.
    pub(super) fn sink(&self) -> &Arc<dyn ProgressSink> {
        &self.sink
    }

    /// Sends what was reported, and drops what comes later.
    pub(super) async fn finish(self) {
        let state = {
            let mut state = self
                .target
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut *state, State::Ended)
        };
        if let State::Sending(sender, task) = state {
            drop(sender);
            if let Err(error) = task.await {
                tracing::warn!(%error, "the progress of an MCP call could not all be sent");
            }
        }
    }
}

async fn forward(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut reports: mpsc::UnboundedReceiver<ProgressUpdate>,
) {
    while let Some(update) = reports.recv().await {
        let mut notification = ProgressNotificationParam::new(token.clone(), update.done);
        notification.total = update.total;
        notification.message = update.message;
        if let Err(error) = peer.notify_progress(notification).await {
            tracing::debug!(%error, "a progress notification was not sent; the client left");
            return;
        }
    }
}
