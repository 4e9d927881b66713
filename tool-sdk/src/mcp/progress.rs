//! A served call's progress as `notifications/progress`, when its request carries a progress
//! token: reports go out in order, on a task of their own, and all of them before the call's
//! result.

use std::sync::Arc;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};
use rmcp::RoleServer;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::define::{ProgressSink, ProgressUpdate};

/// The progress of one call going to its client.
pub(super) struct Forwarding {
    sink: Arc<dyn ProgressSink>,
    sender: mpsc::UnboundedSender<Report>,
    task: JoinHandle<()>,
}

enum Report {
    Update(ProgressUpdate),
    /// The call ended: what came before goes out, anything after is dropped.
    End,
}

struct Sink(mpsc::UnboundedSender<Report>);

impl ProgressSink for Sink {
    fn progress(&self, _tool: &str, _call_id: Option<&str>, update: ProgressUpdate) {
        // After the call ended (a handle kept by work the tool spawned) there is no one to
        // tell: MCP has no progress after the result.
        let _ = self.0.send(Report::Update(update));
    }
}

impl Forwarding {
    /// Starts forwarding, when the request asked for progress.
    pub(super) fn start(context: &RequestContext<RoleServer>) -> Option<Self> {
        let token = context.meta.get_progress_token()?;
        let (sender, receiver) = mpsc::unbounded_channel();
        let task = tokio::spawn(forward(context.peer.clone(), token, receiver));
        Some(Self {
            sink: Arc::new(Sink(sender.clone())),
            sender,
            task,
        })
    }

    /// Where the call's context sends its reports.
    pub(super) fn sink(&self) -> &Arc<dyn ProgressSink> {
        &self.sink
    }

    /// Sends what was reported and stops.
    pub(super) async fn finish(self) {
        let _ = self.sender.send(Report::End);
        if let Err(error) = self.task.await {
            tracing::warn!(%error, "the progress of an MCP call could not all be sent");
        }
    }
}

async fn forward(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut reports: mpsc::UnboundedReceiver<Report>,
) {
    while let Some(Report::Update(update)) = reports.recv().await {
        let mut notification = ProgressNotificationParam::new(token.clone(), update.done);
        notification.total = update.total;
        notification.message = update.message;
        if let Err(error) = peer.notify_progress(notification).await {
            tracing::debug!(%error, "a progress notification was not sent; the client left");
            return;
        }
    }
}
