//! Compensation (saga rollback): what succeeded is recorded, and rolled back newest first, each
//! exactly once, when a later step fails or the run is cancelled.
//!
//! # Every compensating action is bounded
//!
//! An action gets its tool's declared `timeout`, or else the loop's compensation timeout
//! ([`DEFAULT_COMPENSATION_TIMEOUT`] unless set with
//! [`ToolLoop::with_compensation_timeout`](crate::run::ToolLoop::with_compensation_timeout)).
//! It runs on the runtime's blocking thread pool, so a synchronous action that holds its thread
//! holds only that one: the rollback, the run's lease and the rest of the runtime go on. An
//! action past its timeout is reported as [`ToolError::TimedOut`] and the rollback goes on with
//! the next one. An `async` action is dropped there, and when the future running the rollback
//! is dropped (a [`recover`](crate::run::ToolLoop::recover) pass given up on), so that it never
//! goes on beside the attempt of whoever takes the run over; a synchronous one cannot be stopped: its
//! thread runs it to the end, and what it returns is dropped (a runtime that is dropped waits
//! for it, unless shut down with `shutdown_timeout` or `shutdown_background`).
//!
//! A timed-out action may still take effect, so it is not taken as done: with a store, its
//! entry is recorded as timed out and the run is left for recovery, which tries the action again
//! with the same idempotency key, up to [`MAX_COMPENSATION_ATTEMPTS`](crate::store::MAX_COMPENSATION_ATTEMPTS) attempts in all, and then
//! reports it as failed for good.

mod rollback;

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::{select, Either};

use tokio_util::sync::CancellationToken;

use crate::define::{start_caught, CatchPanic, Tool, ToolContext, ToolError};
use crate::store::RecordEntry;

pub(crate) use rollback::{Held, Rollback};

/// How long a compensating action may take when its tool declares no `timeout`, by default.
pub const DEFAULT_COMPENSATION_TIMEOUT: Duration = Duration::from_secs(60);

tokio::task_local! {
    static IDEMPOTENCY_KEY: String;
}

/// The idempotency key of the compensating action running now, in it (also its context's
/// [`call_id`](crate::define::ToolContext::call_id)); `None` elsewhere.
///
/// The key is the same for one recorded call in every attempt, in any process: an action
/// that keeps the keys it has done (or passes them to a service that does) turns a rollback
/// repeated after a crash into a no-op.
///
/// # Examples
///
/// ```
/// use tool_sdk::tool;
///
/// /// Books a room.
/// #[tool(compensate = cancel)]
/// fn book(room: String) -> String {
///     format!("booking-{room}")
/// }
///
/// fn cancel(_args: BookArgs, booking: String) -> Result<(), String> {
///     let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
///     // e.g. DELETE /bookings/{booking} with the header `Idempotency-Key: {key}`
///     let _ = (booking, key);
///     Ok(())
/// }
/// ```
pub fn idempotency_key() -> Option<String> {
    IDEMPOTENCY_KEY.try_with(Clone::clone).ok()
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

/// Runs one entry's compensating action on the blocking thread pool, with panics contained,
/// bounded by the tool's declared timeout or else `default_timeout`.
pub(crate) async fn compensate_one(
    tool: Option<&Arc<dyn Tool>>,
    entry: &RecordEntry,
    default_timeout: Duration,
) -> Result<(), ToolError> {
    let name = entry.call.name.as_str();
    let Some(tool) = tool else {
        return Err(ToolError::failed(
            name,
            "the tool is no longer available to compensate",
        ));
    };
    let after = tool.definition().options.timeout.unwrap_or(default_timeout);
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        // Outside a runtime nothing else is waiting on this thread.
        return run_action(tool, entry).await;
    };
    // Set when the action is given up on: an `async` action stops at its next await. Given up
    // on too when this future is dropped (a recovery pass abandoned by its caller), so the
    // action never goes on beside whoever takes the run over next.
    let abandoned = CancellationToken::new();
    let _abandon_on_drop = abandoned.clone().drop_guard();
    let worker = {
        let (tool, entry, abandoned) = (Arc::clone(tool), entry.clone(), abandoned.clone());
        let runtime_for_action = runtime.clone();
        runtime.spawn_blocking(move || {
            runtime_for_action.block_on(async {
                let action = pin!(run_action(&tool, &entry));
                match select(action, pin!(abandoned.cancelled())).await {
                    Either::Left((result, _)) => Some(result),
                    Either::Right(((), _)) => None,
                }
            })
        })
    };
    match tokio::time::timeout(after, worker).await {
        Ok(Ok(Some(result))) => result,
        Ok(Ok(None)) | Err(_) => {
            abandoned.cancel();
            Err(ToolError::TimedOut {
                tool: name.to_owned(),
                after,
            })
        }
        Ok(Err(failure)) => Err(ToolError::failed(
            name,
            format!("the compensating action's thread failed: {failure}"),
        )),
    }
}

/// The compensating action itself, with the idempotency key in scope both where a synchronous
/// action runs (at the call) and where an asynchronous one is polled.
async fn run_action(tool: &Arc<dyn Tool>, entry: &RecordEntry) -> Result<(), ToolError> {
    let name = entry.call.name.as_str();
    let output = entry.output();
    let context = ToolContext::new()
        .with_call_id(&entry.idempotency_key)
        .with_tool_name(name);
    let key = &entry.idempotency_key;
    let future = IDEMPOTENCY_KEY.sync_scope(key.clone(), || {
        start_caught(name, || {
            match tool.compensate(&entry.call.arguments, &output, context) {
                Some(future) => future,
                None => crate::define::ToolFuture::ready(Err(ToolError::failed(
                    name,
                    "the tool has no compensating action",
                ))),
            }
        })
    });
    let result = match future.into_ready() {
        Ok(result) => result,
        Err(pending) => {
            IDEMPOTENCY_KEY
                .scope(key.clone(), CatchPanic::new(name, pending))
                .await
        }
    };
    result.map(|_| ())
}
