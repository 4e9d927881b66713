//! The SQLite [`ChatMemory`] and [`PausedTurnStore`].

use rusqlite::{params, OptionalExtension};

use super::{backend, decode, encode, SqliteStore};
use crate::model::Message;
use crate::store::{
    ChatMemory, MemoryError, MemoryFuture, PausedTurn, PausedTurnStore, StoreError, StoreFuture,
    TurnId,
};

fn memory_error(error: StoreError) -> MemoryError {
    MemoryError::Backend(error.to_string())
}

impl ChatMemory for SqliteStore {
    fn load<'a>(&'a self, conversation: &'a str) -> MemoryFuture<'a, Vec<Message>> {
        let id = conversation.to_owned();
        let load = self.with(move |connection, _| {
            let messages: Option<String> = connection
                .query_row(
                    "SELECT messages FROM tool_sdk_conversations WHERE id = ?1",
                    [&id],
                    |row| row.get(0),
                )
                .optional()
                .map_err(backend)?;
            messages.map_or_else(|| Ok(Vec::new()), |text| decode(&text))
        });
        Box::pin(async move { load.await.map_err(memory_error) })
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> MemoryFuture<'a, ()> {
        let id = conversation.to_owned();
        let messages = encode(&messages);
        let store = self.with(move |connection, _| {
            connection
                .execute(
                    "INSERT INTO tool_sdk_conversations (id, messages) VALUES (?1, ?2)
                     ON CONFLICT (id) DO UPDATE SET messages = excluded.messages",
                    params![id, messages?],
                )
                .map_err(backend)?;
            Ok(())
        });
        Box::pin(async move { store.await.map_err(memory_error) })
    }
}

impl PausedTurnStore for SqliteStore {
    fn save(&self, turn: PausedTurn) -> StoreFuture<'_, TurnId> {
        let turn = encode(&turn);
        self.with(move |connection, _| {
            let id = TurnId::random()?;
            connection
                .execute(
                    "INSERT INTO tool_sdk_paused_turns (id, turn) VALUES (?1, ?2)",
                    params![id.as_str(), turn?],
                )
                .map_err(backend)?;
            Ok(id)
        })
    }

    fn load<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        let id = id.clone();
        self.with(move |connection, _| {
            let turn: Option<String> = connection
                .query_row(
                    "SELECT turn FROM tool_sdk_paused_turns WHERE id = ?1",
                    [id.as_str()],
                    |row| row.get(0),
                )
                .optional()
                .map_err(backend)?;
            decode(&turn.ok_or(StoreError::NotFound(id.to_string()))?)
        })
    }

    fn take<'a>(&'a self, id: &'a TurnId) -> StoreFuture<'a, PausedTurn> {
        let id = id.clone();
        self.with(move |connection, _| {
            // One statement deletes and returns: of two takers, one gets the row.
            let turn: Option<String> = connection
                .query_row(
                    "DELETE FROM tool_sdk_paused_turns WHERE id = ?1 RETURNING turn",
                    [id.as_str()],
                    |row| row.get(0),
                )
                .optional()
                .map_err(backend)?;
            decode(&turn.ok_or(StoreError::NotFound(id.to_string()))?)
        })
    }
}
