//! Turning a panicking tool into an error result, so one bad tool never takes the process down.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::define::{ToolError, ToolFuture, ToolResult};

/// Runs `start` (which may run a synchronous tool to completion) with panics caught.
#[inline]
pub(crate) fn start_caught<'a>(
    tool: &str,
    start: impl FnOnce() -> ToolFuture<'a>,
) -> ToolFuture<'a> {
    match catch_unwind(AssertUnwindSafe(start)) {
        Ok(future) => future,
        Err(payload) => ToolFuture::ready(Err(panicked(tool, payload.as_ref()))),
    }
}

/// Polls `future` with panics caught.
pub(crate) struct CatchPanic<'t, F> {
    tool: &'t str,
    future: F,
}

impl<'t, F> CatchPanic<'t, F> {
    pub(crate) fn new(tool: &'t str, future: F) -> Self {
        Self { tool, future }
    }
}

impl<F: Future<Output = ToolResult> + Unpin> Future for CatchPanic<'_, F> {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut this.future).poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panicked(this.tool, payload.as_ref()))),
        }
    }
}

pub(crate) fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    ToolError::Panicked {
        tool: tool.to_owned(),
        message,
    }
}
