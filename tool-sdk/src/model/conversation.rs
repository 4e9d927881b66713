//! What every provider requires of a conversation, checked before it is sent or kept.

use crate::model::{Message, ModelError};

/// Checks what every provider requires of a conversation: each assistant tool call is answered
/// by exactly one tool result, right after the assistant message, in call order, and no tool
/// result answers anything else.
///
/// # Errors
///
/// The first violation, as [`ModelError::InvalidConversation`].
///
/// # Examples
///
/// ```
/// use tool_sdk::model::{check_conversation, ModelError};
/// use tool_sdk::{AssistantMessage, Message, ToolCall};
///
/// let asked = Message::Assistant(AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", "t", "{}")]));
/// let unanswered = check_conversation(&[Message::user("hi"), asked]).unwrap_err();
/// assert!(matches!(unanswered, ModelError::InvalidConversation { index: 1, .. }));
/// assert_eq!(unanswered.to_string(), "message 1 of the conversation: call 0 (t) is answered by nothing");
/// ```
pub fn check_conversation(messages: &[Message]) -> Result<(), ModelError> {
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::Assistant(reply) => {
                for (position, call) in reply.tool_calls.iter().enumerate() {
                    match messages.get(i + 1 + position) {
                        Some(Message::Tool(result))
                            if result.call_id == call.id && result.name == call.name => {}
                        other => {
                            let answer = match other {
                                None => "nothing".to_owned(),
                                Some(Message::Tool(result)) => format!(
                                    "the result of another call ({}, id {:?})",
                                    result.name, result.call_id
                                ),
                                Some(_) => format!(
                                    "a message that is not its result (message {})",
                                    i + 1 + position
                                ),
                            };
                            return Err(ModelError::InvalidConversation {
                                index: i,
                                reason: format!(
                                    "call {position} ({}) is answered by {answer}",
                                    call.name
                                ),
                            });
                        }
                    }
                }
                i += 1 + reply.tool_calls.len();
            }
            Message::Tool(result) => {
                return Err(ModelError::InvalidConversation {
                    index: i,
                    reason: format!("a tool result ({}) answers no call", result.name),
                })
            }
            _ => i += 1,
        }
    }
    Ok(())
}
