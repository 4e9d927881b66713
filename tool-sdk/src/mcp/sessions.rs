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
//! counts as a use, so the sessions that go are the ones their clients left.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

/// `M`'s sessions, at most `max` of them.
pub(super) struct Bounded<M> {
    inner: M,
    max: usize,
    /// Each open session and when it was last used, as a count of uses of any session.
    used: Mutex<Uses>,
}

#[derive(Default)]
struct Uses {
    clock: u64,
    last: HashMap<SessionId, u64>,
}

impl<M> Bounded<M> {
    pub(super) fn new(inner: M, max: usize) -> Self {
        Self {
            inner,
            max: max.max(1),
            used: Mutex::default(),
        }
    }

    fn uses(&self) -> std::sync::MutexGuard<'_, Uses> {
        self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a use of `id`, when it is open.
    fn touch(&self, id: &SessionId) {
        let mut uses = self.uses();
        uses.clock += 1;
        let now = uses.clock;
        if let Some(last) = uses.last.get_mut(id) {
            *last = now;
        }
    }

    /// Notes the new session `id`; the session to close, when there are more than `max`.
    fn opened(&self, id: &SessionId) -> Option<SessionId> {
        let mut uses = self.uses();
        uses.clock += 1;
        let now = uses.clock;
        uses.last.insert(id.clone(), now);
        if uses.last.len() <= self.max {
            return None;
        }
        let oldest = uses
            .last
            .iter()
            .filter(|(open, _)| *open != id)
            .min_by_key(|(_, last)| **last)
            .map(|(open, _)| open.clone())?;
        uses.last.remove(&oldest);
        Some(oldest)
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
        self.touch(id);
        self.inner.create_stream(id, message).await
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
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
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
}
