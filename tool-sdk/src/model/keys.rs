//! Naming the tool calls of a reply, so decisions can refer to them.

use std::collections::HashMap;

use crate::model::AssistantMessage;

/// The prefix of a key made from a call's position in its reply.
pub const POSITION_KEY_PREFIX: &str = "#";

/// The position a key made by [`tool_call_keys`] from a call's position (`#1`) names.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub(crate) fn key_position(key: &str) -> Option<usize> {
    key.strip_prefix(POSITION_KEY_PREFIX)?.parse().ok()
}

/// One key per tool call of `reply`, in order, all distinct: the call's id when it has one that
/// no other call of the reply shares, otherwise `#` and the call's 0-based position (`#1`).
///
/// Calls without an id (as Gemini sends them), with an empty id, or sharing an id are named by
/// position. An id that itself starts with `#` is named by position too, so it can never be
/// confused with another call's position key. The reply is not changed.
///
/// # Examples
///
/// ```
/// use tool_sdk::model::tool_call_keys;
/// use tool_sdk::{AssistantMessage, ToolCall};
///
/// let reply = AssistantMessage::with_tool_calls(vec![
///     ToolCall::new("call_a", "pay", "{}"),
///     ToolCall::without_id("pay", "{}"),
///     ToolCall::new("dup", "pay", "{}"),
///     ToolCall::new("dup", "pay", "{}"),
/// ]);
/// assert_eq!(tool_call_keys(&reply), ["call_a", "#1", "#2", "#3"]);
/// ```
pub fn tool_call_keys(reply: &AssistantMessage) -> Vec<String> {
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for call in &reply.tool_calls {
        if let Some(id) = &call.id {
            *uses.entry(id.as_str()).or_default() += 1;
        }
    }
    reply
        .tool_calls
        .iter()
        .enumerate()
        .map(|(position, call)| match call.id.as_deref() {
            Some(id)
                if !id.is_empty()
                    && !id.starts_with(POSITION_KEY_PREFIX)
                    && uses.get(id) == Some(&1) =>
            {
                id.to_owned()
            }
            _ => format!("{POSITION_KEY_PREFIX}{position}"),
        })
        .collect()
}
