//! The future of one call through the registry: nothing runs until it is first polled; then a
//! synchronous tool runs to its end at once, an `async` one is polled with panics caught, and
//! either is stopped at the tool's timeout when it has one (an `async` one only: a synchronous
//! tool cannot be interrupted).
//!
//! A call holds the registered tool by reference ([`Slot`]), the arguments and the context:
//! nothing is copied or counted per call, and what only a debug build checks (the output
//! schema) is reached through the slot, so a release build carries nothing for it.

use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::define::{panicked, BoxedToolFuture, CatchPanic, ToolContext, ToolError, ToolResult};
use crate::register::slot::Slot;

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
}

type Running<'a> = CatchPanic<'a, BoxedToolFuture<'a>>;

enum State<'a> {
    /// Not polled yet: nothing has run. References and `Copy` values only, so leaving this
    /// state drops nothing.
    Pending {
        slot: &'a Slot,
        arguments: &'a str,
        context: ToolContext<'a>,
    },
    /// Started, or answered before it could start.
    Started(Started<'a>),
    /// The result was taken.
    Spent,
}

/// What a call holds once it started: everything of a call that has something to drop, in one
/// variant of [`State`], so that dropping a call that is spent (a synchronous tool's, once
/// polled) or never started tests one tag.
enum Started<'a> {
    /// Finished, its result not taken yet: an error found before the call, or a synchronous
    /// tool started ahead of its first poll ([`CallFuture::start`]).
    Done(ToolResult),
    /// An `async` tool, running.
    Running { slot: &'a Slot, future: Running<'a> },
    /// An `async` tool with a timeout, running.
    Timed {
        slot: &'a Slot,
        future: Pin<Box<tokio::time::Timeout<Running<'a>>>>,
    },
}

impl<'a> CallFuture<'a> {
    #[inline]
    pub(crate) fn done(result: ToolResult) -> Self {
        Self {
            state: State::Started(Started::Done(result)),
        }
    }

    /// A call of the tool of `slot` that starts when first polled.
    #[inline]
    pub(crate) fn pending(slot: &'a Slot, arguments: &'a str, context: ToolContext<'a>) -> Self {
        Self {
            state: State::Pending {
                slot,
                arguments,
                context,
            },
        }
    }

    /// Starts the call now, if it has not started: a synchronous tool runs to its end here.
    /// The loop uses it to run that part where it chooses (off the runtime's worker, say).
    #[inline]
    pub(crate) fn start(&mut self) {
        if let Poll::Ready(result) = self.begin() {
            self.state = State::Started(Started::Done(result));
        }
    }

    /// Starts a call that has not started: its result when the tool finished at once (the
    /// state is then spent), else `Pending` with the call left running or already started.
    /// The poll's own type, so that a synchronous tool's result is handed out as it came.
    #[inline]
    fn begin(&mut self) -> Poll<ToolResult> {
        // Every field of the pending state is a reference or `Copy`: read them in place rather
        // than moving the whole state out.
        let State::Pending {
            slot,
            arguments,
            context,
        } = self.state
        else {
            return Poll::Pending;
        };
        // The state left holds nothing to drop (see `Pending`): forgetting it spares the call
        // of the state's drop glue that assigning over it would make.
        std::mem::forget(std::mem::replace(&mut self.state, State::Spent));
        let name: &'a str = &slot.name;
        let state = &mut self.state;
        // The tool runs with panics caught; a synchronous one to its end, whose result comes
        // out of the guard as the poll's value, an `async` one up to where it is kept running.
        let started = catch_unwind(AssertUnwindSafe(|| {
            match slot.tool.call(arguments, context).into_result_or_boxed() {
                Ok(result) => Poll::Ready(result),
                Err(pending) => {
                    let future = CatchPanic::new(name, pending);
                    *state = State::Started(match slot.timeout {
                        None => Started::Running { slot, future },
                        Some(after) => Started::Timed {
                            slot,
                            future: Box::pin(tokio::time::timeout(after, future)),
                        },
                    });
                    Poll::Pending
                }
            }
        }));
        match started {
            Ok(poll) => poll.map(|result| slot.output.check(name, result)),
            Err(payload) => Poll::Ready(Err(panicked(name, payload.as_ref()))),
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        // A synchronous tool's result goes straight out, never stored.
        match self.begin() {
            Poll::Pending => self.poll_started(cx),
            ready => ready,
        }
    }
}

impl CallFuture<'_> {
    /// Polls a call that has started (or was done before it could).
    fn poll_started(&mut self, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let result = match &mut self.state {
            // `begin` just left this state; were it ever kept, say so rather than hang.
            State::Pending { slot, .. } => Err(ToolError::failed(
                &*slot.name,
                "the tool call could not start",
            )),
            State::Started(Started::Done(_)) => {
                match std::mem::replace(&mut self.state, State::Spent) {
                    State::Started(Started::Done(result)) => result,
                    _ => Err(ToolError::failed("", "tool call polled after completion")),
                }
            }
            State::Started(Started::Running { slot, future }) => match Pin::new(future).poll(cx) {
                Poll::Ready(result) => slot.output.check(&slot.name, result),
                Poll::Pending => return Poll::Pending,
            },
            State::Started(Started::Timed { slot, future }) => match future.as_mut().poll(cx) {
                Poll::Ready(Ok(result)) => slot.output.check(&slot.name, result),
                Poll::Ready(Err(_)) => Err(ToolError::TimedOut {
                    tool: slot.name.to_string(),
                    after: slot.timeout.unwrap_or_default(),
                }),
                Poll::Pending => return Poll::Pending,
            },
            State::Spent => Err(ToolError::failed("", "tool call polled after completion")),
        };
        self.state = State::Spent;
        Poll::Ready(result)
    }
}

impl fmt::Debug for CallFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Pending { .. } => "not started",
            State::Started(Started::Done(_)) => "done",
            State::Spent => "taken",
            State::Started(Started::Running { .. }) => "running",
            State::Started(Started::Timed { .. }) => "running with a timeout",
        };
        f.debug_struct("CallFuture").field("state", &state).finish()
    }
}
