//! A request body that keeps what it passed on, so that a body the protocol could not read
//! can still be looked at to answer it. Keeping costs no copy: the parts are `Bytes`, shared.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use hyper::body::{Body, Bytes, Frame, SizeHint};

/// What a [`KeptBody`] passed on, up to a limit.
#[derive(Debug, Clone, Default)]
pub(super) struct Kept(Arc<Mutex<Parts>>);

#[derive(Debug, Default)]
struct Parts {
    data: Vec<Bytes>,
    len: usize,
    /// More came than the limit: what is kept is not the whole body.
    overflowed: bool,
}

impl Kept {
    /// The whole body, if it was kept whole.
    pub(super) fn whole(&self) -> Option<Vec<u8>> {
        let parts = self.0.lock().ok()?;
        if parts.overflowed {
            return None;
        }
        let mut whole = Vec::with_capacity(parts.len);
        for data in &parts.data {
            whole.extend_from_slice(data);
        }
        Some(whole)
    }
}

/// `inner`, keeping at most `limit` bytes of its data in a [`Kept`].
pub(super) struct KeptBody<B> {
    inner: B,
    kept: Kept,
    limit: usize,
}

impl<B> KeptBody<B> {
    pub(super) fn new(inner: B, limit: usize) -> (Self, Kept) {
        let kept = Kept::default();
        let body = Self {
            inner,
            kept: kept.clone(),
            limit,
        };
        (body, kept)
    }
}

impl<B> Body for KeptBody<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let (Some(data), Ok(mut parts)) = (frame.data_ref(), this.kept.0.lock()) {
                if parts.overflowed || parts.len.saturating_add(data.len()) > this.limit {
                    // Past the limit the protocol refuses the body anyway; keep nothing.
                    parts.overflowed = true;
                    parts.data.clear();
                } else {
                    parts.len += data.len();
                    parts.data.push(data.clone());
                }
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
