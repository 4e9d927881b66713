//! One call of a server's tool: with a progress token when someone listens to the call's
//! progress (the server's `notifications/progress` become the call's own reports), and given
//! up when the run is cancelled, which tells the server (`notifications/cancelled`).

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::{FutureExt as _, StreamExt as _};
use rmcp::handler::client::progress::{ProgressDispatcher, ProgressSubscriber};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    ProgressNotificationParam, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use rmcp::RoleClient;

use super::result::from_call_result;
use super::tool_list::ToolList;
use crate::define::{Progress, ToolOutput};
use crate::register::CallScope;

/// Calls the server's tool with `request`, in the call's `scope`.
///
/// rmcp puts a progress token of its own on every request; the call's subscription to it
/// starts as soon as the request is queued, long before the server, another process, can have
/// read it and answered with progress. Progress is best effort, as MCP's is: a report that
/// arrives after the result is dropped, and one behind an earlier report is skipped.
pub(super) async fn call_remote(
    peer: Peer<RoleClient>,
    request: CallToolRequestParams,
    scope: CallScope,
    dispatcher: ProgressDispatcher,
    list: Arc<ToolList>,
) -> Result<ToolOutput, String> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(request));
    let handle = match peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
    {
        Ok(handle) => handle,
        Err(error) => return Err(not_answered(&list, &error)),
    };
    let mut subscriber = if scope.progress.is_listened_to() {
        Some(dispatcher.subscribe(handle.progress_token.clone()).await)
    } else {
        None
    };
    let cancelled = async {
        match &scope.cancellation {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    let last = Mutex::new(None);
    let reports = relay(subscriber.as_mut(), &scope.progress, &last);
    // Dropped before the answer (a registry's timeout, a run dropped), the call is given up:
    // the server is told then too.
    let mut unanswered = GivenUpOnDrop {
        peer: handle.peer.clone(),
        id: Some(handle.id.clone()),
    };
    let answered = tokio::select! {
        answered = handle.await_response() => answered,
        () = cancelled => {
            if let Some(id) = unanswered.id.take() {
                tell_cancelled(&unanswered.peer, id).await;
            }
            return Err("the call was cancelled; the MCP server was told".to_owned());
        }
        () = reports => return unreachable_relay(),
    };
    unanswered.id = None;
    if let Some(subscriber) = subscriber.as_mut() {
        // Reports the server sent just before its result, already here.
        while let Some(Some(update)) = subscriber.next().now_or_never() {
            report(&scope.progress, update, &last);
        }
    }
    match answered {
        Ok(ServerResult::CallToolResult(result)) => from_call_result(result),
        Ok(ServerResult::EmptyResult(_)) => Ok(ToolOutput::text("")),
        Ok(_) => Err("the MCP server answered the call with something else than a result".into()),
        Err(error) => Err(not_answered(&list, &error)),
    }
}

/// A call the server did not answer (the session ended, the tool is gone): the list is asked
/// for again next time.
fn not_answered(list: &ToolList, error: &ServiceError) -> String {
    list.invalidate();
    format!("the MCP server did not answer: {error}")
}

/// A request whose answer has not come: when dropped so, the server is told it was cancelled.
struct GivenUpOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for GivenUpOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let peer = self.peer.clone();
            runtime.spawn(async move { tell_cancelled(&peer, id).await });
        }
    }
}

/// Sends `notifications/cancelled` for the request `id`.
async fn tell_cancelled(peer: &Peer<RoleClient>, id: RequestId) {
    let notice = CancelledNotificationParam::new(Some(id), Some("the run was cancelled".into()));
    if let Err(error) = peer.notify_cancelled(notice).await {
        tracing::debug!(%error, "the MCP server was not told of a cancelled call");
    }
}

/// Passes the server's reports on, until the call ends (never on its own).
async fn relay(
    subscriber: Option<&mut ProgressSubscriber>,
    progress: &Progress,
    last: &Mutex<Option<f64>>,
) {
    if let Some(subscriber) = subscriber {
        while let Some(update) = subscriber.next().await {
            report(progress, update, last);
        }
    }
    std::future::pending().await
}

fn unreachable_relay() -> Result<ToolOutput, String> {
    Err("the progress relay ended before the call".to_owned())
}

/// Passes one report on, unless it is not ahead of the last: rmcp hands each notification to
/// a task of its own, so two can arrive out of order, and progress only grows.
fn report(progress: &Progress, update: ProgressNotificationParam, last: &Mutex<Option<f64>>) {
    {
        let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.is_some_and(|last| update.progress <= last) {
            return;
        }
        *last = Some(update.progress);
    }
    progress.report(update.progress, update.total, update.message.as_deref());
}
