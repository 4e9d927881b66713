//! What a run appends to: a conversation the caller holds, or one begun from a prompt.

use crate::model::Message;

/// The conversation a run goes on: one the caller holds (`&mut Vec<Message>`), appended to in
/// place, or a new one begun from a prompt (`&str`, `String`) or a first [`Message`], which
/// the run owns.
///
/// ```
/// use tool_sdk::run::Conversation;
/// use tool_sdk::Message;
///
/// let mut held = vec![Message::user("Hi")];
/// assert_eq!(Conversation::from(&mut held).messages().len(), 1);
/// assert_eq!(Conversation::from("Hi").messages(), &[Message::user("Hi")]);
/// ```
#[derive(Debug)]
pub enum Conversation<'a> {
    /// The caller's conversation, appended to in place.
    Held(&'a mut Vec<Message>),
    /// A conversation of the run's own.
    Owned(Vec<Message>),
}

impl Conversation<'_> {
    /// Its messages so far.
    pub fn messages(&self) -> &[Message] {
        match self {
            Self::Held(messages) => messages,
            Self::Owned(messages) => messages,
        }
    }

    pub(crate) fn messages_mut(&mut self) -> &mut Vec<Message> {
        match self {
            Self::Held(messages) => messages,
            Self::Owned(messages) => messages,
        }
    }
}

impl<'a> From<&'a mut Vec<Message>> for Conversation<'a> {
    fn from(messages: &'a mut Vec<Message>) -> Self {
        Self::Held(messages)
    }
}

impl From<&str> for Conversation<'_> {
    fn from(prompt: &str) -> Self {
        Self::Owned(vec![Message::user(prompt)])
    }
}

impl From<String> for Conversation<'_> {
    fn from(prompt: String) -> Self {
        Self::Owned(vec![Message::user(prompt)])
    }
}

impl From<Message> for Conversation<'_> {
    fn from(message: Message) -> Self {
        Self::Owned(vec![message])
    }
}
