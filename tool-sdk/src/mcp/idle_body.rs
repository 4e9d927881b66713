//! A request body that fails when its client stops sending it, so that a client which sends
//! its headers and then stalls cannot hold a connection for good.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::time::{Instant, Sleep};

/// [`Incoming`], failing with [`BodyError::Stalled`] when no part of it arrives for `idle`.
pub(super) struct IdleBody {
    inner: Incoming,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl IdleBody {
    pub(super) fn new(inner: Incoming, idle: Duration) -> Self {
        Self {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }
}

/// Why reading a request body failed.
#[derive(Debug)]
pub(super) enum BodyError {
    /// The connection failed.
    Transport(hyper::Error),
    /// The client sent nothing for this long.
    Stalled(Duration),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transport(error) => write!(f, "{error}"),
            Self::Stalled(idle) => write!(f, "the client sent nothing of the body for {idle:?}"),
        }
    }
}

impl std::error::Error for BodyError {}

impl Body for IdleBody {
    type Data = <Incoming as Body>::Data;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                let next = Instant::now() + this.idle;
                this.deadline.as_mut().reset(next);
                Poll::Ready(frame.map(|frame| frame.map_err(BodyError::Transport)))
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(BodyError::Stalled(this.idle)))),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
