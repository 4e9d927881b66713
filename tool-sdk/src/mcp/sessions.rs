//! A bound on the sessions a server served over streamable HTTP keeps. Each session holds a
//! worker, channels and buffers (some 60 KB) until it is closed or idle for rmcp's timeout (5
//! minutes): clients that open sessions and leave them (a crashed host, a careless script,
//! someone doing it on purpose) would otherwise grow the server without limit.
//!
//! At the bound, opening a session closes the one that has gone longest without a request,
//! rather than refusing the new one: a refusal would lock every new client out for as long as
//! the idle sessions live (minutes), and one that opened them on purpose could keep it so; a
//! closed session costs its client one new `initialize`, which MCP asks clients to send when
//! their session is not found (`404`). Every request, notification and stream of a session
//! counts as a use, so the sessions that go are the ones their clients left; a session with a
//! stream open (a call in flight, a question waiting for its user's answer, a client listening)
//! goes only when every session has one, so opening sessions cannot cut a call short.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

/// `M`'s sessions, at most `max` of them.
pub(super) struct Bounded<M> {
    inner: M,
    max: usize,
    /// Each open session: when it was last used, and its streams open. Shared with the
    /// streams, which say when they end.
    used: Arc<Mutex<Uses>>,
}

#[derive(Default)]
struct Uses {
    /// A count of uses of any session: the order of uses.
    clock: u64,
    last: HashMap<SessionId, Use>,
}

/// One open session's use.
#[derive(Default)]
struct Use {
    /// The clock at its last use.
    at: u64,
    /// Its streams open (the answers to its requests, its listening stream).
    streams: usize,
}

fn lock(used: &Mutex<Uses>) -> std::sync::MutexGuard<'_, Uses> {
    used.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<M> Bounded<M> {
    pub(super) fn new(inner: M, max: usize) -> Self {
        Self {
            inner,
            max: max.max(1),
            used: Arc::default(),
        }
    }

    fn uses(&self) -> std::sync::MutexGuard<'_, Uses> {
        lock(&self.used)
    }

    /// Notes a use of `id`, when it is open.
    fn touch(&self, id: &SessionId) {
        let mut uses = self.uses();
        uses.clock += 1;
        let now = uses.clock;
        if let Some(last) = uses.last.get_mut(id) {
            last.at = now;
        }
    }

    /// Notes the new session `id`; the session to close, when there are more than `max`: the
    /// one unused the longest among those without a stream open, or among all when every one
    /// has one (the bound holds either way).
    fn opened(&self, id: &SessionId) -> Option<SessionId> {
        let mut uses = self.uses();
        uses.clock += 1;
        let now = uses.clock;
        uses.last.insert(
            id.clone(),
            Use {
                at: now,
                streams: 0,
            },
        );
        if uses.last.len() <= self.max {
            return None;
        }
        let oldest = uses
            .last
            .iter()
            .filter(|(open, _)| *open != id)
            .min_by_key(|(_, last)| (last.streams > 0, last.at))
            .map(|(open, _)| open.clone())?;
        uses.last.remove(&oldest);
        Some(oldest)
    }

    /// `stream`, counted as open for `id` (and as a use of it) until it ends or is dropped.
    fn tracked<S>(&self, id: &SessionId, stream: S) -> Tracked
    where
        S: Stream<Item = ServerSseMessage> + Send + Sync + 'static,
    {
        let mut uses = self.uses();
        uses.clock += 1;
        let now = uses.clock;
        if let Some(last) = uses.last.get_mut(id) {
            last.at = now;
            last.streams += 1;
        }
        Tracked {
            stream: Box::pin(stream),
            _open: Open {
                used: Arc::clone(&self.used),
                id: id.clone(),
            },
        }
    }

    fn closed(&self, id: &SessionId) {
        self.uses().last.remove(id);
    }
}

impl<M: SessionManager> SessionManager for Bounded<M> {
    type Error = M::Error;
    type Transport = M::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        if let Some(oldest) = self.opened(&id) {
            tracing::info!(
                session = %oldest,
                max = self.max,
                "closing the MCP session unused the longest, to open another within the bound"
            );
            if let Err(error) = self.inner.close_session(&oldest).await {
                tracing::warn!(session = %oldest, %error, "closing an MCP session failed");
            }
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        let open = self.inner.has_session(id).await?;
        if open {
            self.touch(id);
        } else {
            // Ended on its own (idle for too long): no longer counted.
            self.closed(id);
        }
        Ok(open)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.closed(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.inner.create_stream(id, message).await?;
        Ok(self.tracked(id, stream))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(self.tracked(id, stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(self.tracked(id, stream))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let outcome = self.inner.restore_session(id.clone()).await?;
        if let RestoreOutcome::Restored(_) = &outcome {
            if let Some(oldest) = self.opened(&id) {
                if let Err(error) = self.inner.close_session(&oldest).await {
                    tracing::warn!(session = %oldest, %error, "closing an MCP session failed");
                }
            }
        }
        Ok(outcome)
    }

    fn event_store(
        &self,
    ) -> Option<std::sync::Arc<dyn rmcp::transport::streamable_http_server::session::EventStore>>
    {
        self.inner.event_store()
    }
}

/// A session's stream, counted as open while it lives.
struct Tracked {
    stream: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>,
    _open: Open,
}

impl Stream for Tracked {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.stream.as_mut().poll_next(context)
    }
}

/// Counts one stream of `id` out when dropped (the stream ended, or its client went away).
struct Open {
    used: Arc<Mutex<Uses>>,
    id: SessionId,
}

impl Drop for Open {
    fn drop(&mut self) {
        let mut uses = lock(&self.used);
        uses.clock += 1;
        let now = uses.clock;
        if let Some(last) = uses.last.get_mut(&self.id) {
            last.streams = last.streams.saturating_sub(1);
            last.at = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_bound_the_session_unused_the_longest_goes() {
        let bounded = Bounded::new((), 2);
        let [a, b, c, d]: [SessionId; 4] = ["a", "b", "c", "d"].map(SessionId::from);
        assert_eq!(bounded.opened(&a), None);
        assert_eq!(bounded.opened(&b), None);
        bounded.touch(&a);
        assert_eq!(bounded.opened(&c), Some(b.clone()));
        bounded.closed(&a);
        assert_eq!(bounded.opened(&d), None);
        // A use of a session already gone does not bring it back.
        bounded.touch(&b);
        assert_eq!(bounded.uses().last.len(), 2);
    }

    #[test]
    fn a_session_with_a_stream_open_goes_only_when_every_session_has_one() {
        let bounded = Bounded::new((), 2);
        let [a, b, c, d, e]: [SessionId; 5] = ["a", "b", "c", "d", "e"].map(SessionId::from);
        assert_eq!(bounded.opened(&a), None);
        // `a` waits for its user's answer on a stream; `b` is used after it, then left.
        let waiting = bounded.tracked(&a, futures_util::stream::pending());
        assert_eq!(bounded.opened(&b), None);
        bounded.touch(&b);
        assert_eq!(bounded.opened(&c), Some(b.clone()));
        // Every session with a stream open: the bound still holds, the oldest goes.
        let listening = bounded.tracked(&c, futures_util::stream::pending());
        assert_eq!(bounded.opened(&d), Some(a.clone()));
        drop(waiting);
        drop(listening);
        // Once its stream ends, `c` is idle and goes before `d`, which was opened after it.
        bounded.touch(&d);
        assert_eq!(bounded.opened(&e), Some(c.clone()));
    }
}
