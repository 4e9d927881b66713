//! The future of one call through the registry: finished at once for synchronous tools, polled
//! with panics caught for `async` ones, and stopped at the tool's timeout when it has one.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::define::{CatchPanic, ToolError, ToolFuture, ToolResult};

/// What [`ToolRegistry::call`](crate::register::ToolRegistry::call) returns.
///
/// # Cancel safety
///
/// Dropping it stops the tool at its current await point; a tool that must not stop halfway
/// should watch its cancellation token instead.
#[must_use = "a tool call does nothing until it is awaited"]
pub struct CallFuture<'a> {
    state: State<'a>,
}

type Timed<'a> = Pin<Box<tokio::time::Timeout<CatchPanic<'a, ToolFuture<'a>>>>>;

enum State<'a> {
    Done(Option<ToolResult>),
    Running(CatchPanic<'a, ToolFuture<'a>>),
    Timed {
        tool: &'a str,
        after: Duration,
        future: Timed<'a>,
    },
}

impl<'a> CallFuture<'a> {
    #[inline]
    pub(crate) fn done(result: ToolResult) -> Self {
        Self {
            state: State::Done(Some(result)),
        }
    }

    /// A started call: finished already, or to be polled (under `timeout`, when given).
    #[inline]
    pub(crate) fn started(
        tool: &'a str,
        future: ToolFuture<'a>,
        timeout: Option<Duration>,
    ) -> Self {
        let future = match future.into_ready() {
            Ok(result) => return Self::done(result),
            Err(pending) => CatchPanic::new(tool, pending),
        };
        let state = match timeout {
            None => State::Running(future),
            Some(after) => State::Timed {
                tool,
                after,
                future: Box::pin(tokio::time::timeout(after, future)),
            },
        };
        Self { state }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        match &mut self.state {
            State::Done(result) => Poll::Ready(result.take().unwrap_or_else(|| {
                Err(ToolError::failed("", "tool call polled after completion"))
            })),
            State::Running(future) => Pin::new(future).poll(cx),
            State::Timed {
                tool,
                after,
                future,
            } => future.as_mut().poll(cx).map(|result| {
                result.unwrap_or_else(|_| {
                    Err(ToolError::TimedOut {
                        tool: (*tool).to_owned(),
                        after: *after,
                    })
                })
            }),
        }
    }
}

impl fmt::Debug for CallFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Done(Some(_)) => "done",
            State::Done(None) => "taken",
            State::Running(_) => "running",
            State::Timed { .. } => "running with a timeout",
        };
        f.debug_struct("CallFuture").field("state", &state).finish()
    }
}
