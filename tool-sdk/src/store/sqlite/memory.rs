//! The SQLite [`ChatMemory`].

use rusqlite::{params, OptionalExtension};

use super::{backend, decode, encode, SqliteStore};
use crate::model::Message;
use crate::store::{ChatMemory, StoreFuture};

impl ChatMemory for SqliteStore {
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Vec<Message>> {
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
        load
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> StoreFuture<'a, ()> {
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
        store
    }
}
