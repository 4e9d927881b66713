//! Where a conversation lives between runs.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use crate::model::Message;

/// A boxed future of a memory operation.
pub type MemoryFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, MemoryError>> + Send + 'a>>;

/// Why a memory operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// The storage failed.
    #[error("the chat memory failed: {0}")]
    Backend(String),
}

/// Conversations by id. The loop reads one before a run and writes it back after, whole, so
/// what is stored is always valid for a provider (every tool call answered, in order).
pub trait ChatMemory: Send + Sync {
    /// The conversation's messages, oldest first (empty for a new conversation).
    fn load<'a>(&'a self, conversation: &'a str) -> MemoryFuture<'a, Vec<Message>>;

    /// Replaces the conversation's messages.
    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> MemoryFuture<'a, ()>;
}

/// A [`ChatMemory`] in this process's memory.
///
/// # Examples
///
/// ```
/// use tool_sdk::{ChatMemory, InMemoryChatMemory, Message};
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
    fn load<'a>(&'a self, conversation: &'a str) -> MemoryFuture<'a, Vec<Message>> {
        Box::pin(async move {
            let conversations = self
                .conversations
                .lock()
                .map_err(|_| MemoryError::Backend("poisoned lock".into()))?;
            Ok(conversations.get(conversation).cloned().unwrap_or_default())
        })
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> MemoryFuture<'a, ()> {
        Box::pin(async move {
            let mut conversations = self
                .conversations
                .lock()
                .map_err(|_| MemoryError::Backend("poisoned lock".into()))?;
            conversations.insert(conversation.to_owned(), messages.to_vec());
            Ok(())
        })
    }
}
