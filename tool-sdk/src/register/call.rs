//! The future of one call through the registry: nothing runs until it is first polled; then a
//! synchronous tool runs to its end at once, an `async` one is polled with panics caught, and
//! either is stopped at the tool's timeout when it has one (an `async` one only: a synchronous
//! tool cannot be interrupted).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::define::{
    start_caught, CatchPanic, Tool, ToolContext, ToolError, ToolFuture, ToolResult,
};
use crate::register::output_check::OutputCheck;

/// What [`ToolRegistry::call`](crate::register::ToolRegistry::call) returns.
///
/// Like every Rust future, it does nothing until it is polled: a call dropped unpolled never
/// runs its tool, synchronous or not.
///
/// # Cancel safety
///
/// Dropping it stops the tool at its current await point; a tool that must not stop halfway
/// should watch its cancellation token instead.
#[must_use = "a tool call does nothing until it is awaited"]
pub struct CallFuture<'a> {
    state: State<'a>,
    /// In debug builds, the check of the result against the tool's output schema, and the
    /// tool's name.
    output: Option<(&'a OutputCheck, &'a str)>,
}

type Timed<'a> = Pin<Box<tokio::time::Timeout<CatchPanic<'a, ToolFuture<'a>>>>>;

enum State<'a> {
    /// Not polled yet: nothing has run.
    Pending {
        tool: &'a dyn Tool,
        name: &'a str,
        arguments: &'a str,
        context: ToolContext<'a>,
        timeout: Option<Duration>,
    },
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
            output: None,
        }
    }

    /// A call of `tool` (registered as `name`) that starts when first polled.
    #[inline]
    pub(crate) fn pending(
        tool: &'a dyn Tool,
        name: &'a str,
        arguments: &'a str,
        context: ToolContext<'a>,
        timeout: Option<Duration>,
    ) -> Self {
        Self {
            state: State::Pending {
                tool,
                name,
                arguments,
                context,
                timeout,
            },
            output: None,
        }
    }

    /// The same call of `tool`, its result checked by `output`.
    #[inline]
    pub(crate) fn with_output_check(
        mut self,
        output: Option<&'a OutputCheck>,
        tool: &'a str,
    ) -> Self {
        self.output = output.map(|check| (check, tool));
        self
    }

    /// Starts the call now, if it has not started: a synchronous tool runs to its end here.
    /// The loop uses it to run that part where it chooses (off the runtime's worker, say).
    #[inline]
    pub(crate) fn start(&mut self) {
        if let Some(result) = self.begin() {
            self.state = State::Done(Some(result));
        }
    }

    /// Starts a call that has not started: its result when the tool finished at once (the
    /// state is then spent), else `None` with the call left running.
    #[inline]
    fn begin(&mut self) -> Option<ToolResult> {
        // Every field of the pending state is a reference or `Copy`: read them in place rather
        // than moving the whole state out.
        let State::Pending {
            tool,
            name,
            arguments,
            context,
            timeout,
        } = self.state
        else {
            return None;
        };
        self.state = State::Done(None);
        let future = start_caught(name, || tool.call(arguments, context));
        match future.into_ready() {
            Ok(result) => Some(result),
            Err(pending) => {
                let future = CatchPanic::new(name, pending);
                self.state = match timeout {
                    None => State::Running(future),
                    Some(after) => State::Timed {
                        tool: name,
                        after,
                        future: Box::pin(tokio::time::timeout(after, future)),
                    },
                };
                None
            }
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let poll = self.as_mut().poll_result(cx);
        match (self.output, poll) {
            (Some((check, tool)), Poll::Ready(result)) => Poll::Ready(check.check(tool, result)),
            (_, poll) => poll,
        }
    }
}

impl CallFuture<'_> {
    #[inline]
    fn poll_result(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        // A synchronous tool's result goes straight out, never stored.
        if let Some(result) = self.begin() {
            return Poll::Ready(result);
        }
        match &mut self.state {
            // `start` just left this state; were it ever kept, say so rather than hang.
            State::Pending { name, .. } => Poll::Ready(Err(ToolError::failed(
                *name,
                "the tool call could not start",
            ))),
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
            State::Pending { .. } => "not started",
            State::Done(Some(_)) => "done",
            State::Done(None) => "taken",
            State::Running(_) => "running",
            State::Timed { .. } => "running with a timeout",
        };
        f.debug_struct("CallFuture").field("state", &state).finish()
    }
}
