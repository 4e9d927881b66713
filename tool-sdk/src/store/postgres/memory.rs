//! The PostgreSQL [`ChatMemory`].

use super::{backend, PostgresStore};
use crate::model::Message;
use crate::store::{ChatMemory, StoreFuture};

impl ChatMemory for PostgresStore {
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Vec<Message>> {
        Box::pin(async move {
            let row = self
                .connection()
                .await
                .map_err(backend)?
                .query_opt(
                    "SELECT messages FROM tool_sdk_conversations WHERE id = $1",
                    &[&conversation],
                )
                .await
                .map_err(backend)?;
            let Some(row) = row else {
                return Ok(Vec::new());
            };
            let text: String = row.try_get(0).map_err(backend)?;
            serde_json::from_str(&text)
                .map_err(|e| backend(format!("the stored conversation is unreadable: {e}")))
        })
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(messages)
                .map_err(|e| backend(format!("cannot encode the conversation: {e}")))?;
            self.connection()
                .await
                .map_err(backend)?
                .execute(
                    "INSERT INTO tool_sdk_conversations (id, messages) VALUES ($1, $2)
                     ON CONFLICT (id) DO UPDATE SET messages = excluded.messages",
                    &[&conversation, &text],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }
}
