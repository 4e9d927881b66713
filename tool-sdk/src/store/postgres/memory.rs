//! The PostgreSQL [`ChatMemory`] and [`PausedTurnStore`].

use super::{backend, PostgresStore};
use crate::model::Message;
use crate::store::{
    ChatMemory, MemoryError, MemoryFuture, PausedTurn, PausedTurnStore, StoreError, StoreFuture,
    TurnId,
};

fn memory_error(error: impl std::fmt::Display) -> MemoryError {
    MemoryError::Backend(error.to_string())
}

impl ChatMemory for PostgresStore {
    fn load<'a>(&'a self, conversation: &'a str) -> MemoryFuture<'a, Vec<Message>> {
        Box::pin(async move {
            let row = self
                .connection()
                .await
                .map_err(memory_error)?
                .query_opt(
                    "SELECT messages FROM tool_sdk_conversations WHERE id = $1",
                    &[&conversation],
                )
                .await
                .map_err(memory_error)?;
            let Some(row) = row else {
                return Ok(Vec::new());
            };
            let text: String = row.try_get(0).map_err(memory_error)?;
            serde_json::from_str(&text)
                .map_err(|e| memory_error(format!("the stored conversation is unreadable: {e}")))
        })
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> MemoryFuture<'a, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(messages)
                .map_err(|e| memory_error(format!("cannot encode the conversation: {e}")))?;
            self.connection()
                .await
                .map_err(memory_error)?
                .execute(
                    "INSERT INTO tool_sdk_conversations (id, messages) VALUES ($1, $2)
                     ON CONFLICT (id) DO UPDATE SET messages = excluded.messages",
                    &[&conversation, &text],
                )
                .await
                .map_err(memory_error)?;
            Ok(())
        })
    }
}

fn decode_turn(text: &str) -> Result<PausedTurn, StoreError> {
    serde_json::from_str(text).map_err(|e| backend(format!("the stored turn is unreadable: {e}")))
}

impl PausedTurnStore for PostgresStore {
    fn save(&self, turn: PausedTurn) -> StoreFuture<'_, TurnId> {
        Box::pin(async move {
            let id = TurnId::random()?;
            let text = serde_json::to_string(&turn)
                .map_err(|e| backend(format!("cannot encode the turn: {e}")))?;
            self.connection()
                .await
                .map_err(backend)?
                .execute(
                    "INSERT INTO tool_sdk_paused_turns (id, turn) VALUES ($1, $2)",
                    &[&id.as_str(), &text],
                )
                .await
                .map_err(backend)?;
            Ok(id)
        })
    }

    fn load<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            let row = self
                .connection()
                .await
                .map_err(backend)?
                .query_opt(
                    "SELECT turn FROM tool_sdk_paused_turns WHERE id = $1",
                    &[&id.as_str()],
                )
                .await
                .map_err(backend)?
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            decode_turn(&row.try_get::<_, String>(0).map_err(backend)?)
        })
    }

    fn take<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        Box::pin(async move {
            // One statement deletes and returns: of two takers, one gets the row.
            let row = self
                .connection()
                .await
                .map_err(backend)?
                .query_opt(
                    "DELETE FROM tool_sdk_paused_turns WHERE id = $1 RETURNING turn",
                    &[&id.as_str()],
                )
                .await
                .map_err(backend)?
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            decode_turn(&row.try_get::<_, String>(0).map_err(backend)?)
        })
    }
}
