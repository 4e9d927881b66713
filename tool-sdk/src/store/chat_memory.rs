//! Where a conversation lives between runs.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::model::Message;
use crate::store::{StoreError, StoreFuture};

/// Conversations by id. The loop reads one before a run and writes it back after, whole, so
/// what is stored is always valid for a provider (every tool call answered, in order).
pub trait ChatMemory: Send + Sync {
    /// The conversation's messages, oldest first (empty for a new conversation).
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Vec<Message>>;

    /// Replaces the conversation's messages.
    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> StoreFuture<'a, ()>;
}

/// A [`ChatMemory`] in this process's memory.
///
/// # Examples
///
/// ```
/// use tool_sdk::{store::{ChatMemory, InMemoryChatMemory}, Message};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let memory = InMemoryChatMemory::new();
/// memory.store("ana", &[Message::user("hi")]).await.unwrap();
/// assert_eq!(memory.load("ana").await.unwrap(), [Message::user("hi")]);
/// assert!(memory.load("ben").await.unwrap().is_empty());
/// # }
/// ```
#[derive(Debug, Default)]
pub struct InMemoryChatMemory {
    conversations: Mutex<HashMap<String, Vec<Message>>>,
}

impl InMemoryChatMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ChatMemory for InMemoryChatMemory {
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Vec<Message>> {
        Box::pin(async move {
            let conversations = self
                .conversations
                .lock()
                .map_err(|_| StoreError::Backend("poisoned lock".into()))?;
            Ok(conversations.get(conversation).cloned().unwrap_or_default())
        })
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conversations = self
                .conversations
                .lock()
                .map_err(|_| StoreError::Backend("poisoned lock".into()))?;
            conversations.insert(conversation.to_owned(), messages.to_vec());
            Ok(())
        })
    }
}
