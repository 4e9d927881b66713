//! Ids for the calls of a conversation and their results, as the providers that need them
//! (OpenAI, Anthropic) want them: every call one, its result the same, and the same
//! conversation always the same ids.

use std::borrow::Cow;

use crate::model::keys::key_position;
use crate::model::{ToolCall, ToolResultMessage};

/// The id sent for each call of the assistant message at `index`: its own when it has one
/// that no other call of the reply shares, else `<prefix>_<index>_<position>`.
pub(crate) fn call_ids<'c>(
    prefix: &str,
    index: usize,
    calls: &'c [ToolCall],
) -> Vec<(Option<&'c str>, Cow<'c, str>)> {
    calls
        .iter()
        .enumerate()
        .map(|(position, call)| {
            let own = call.id.as_deref().filter(|id| !id.is_empty());
            let unique = own.filter(|id| {
                calls
                    .iter()
                    .filter(|other| other.id.as_deref() == Some(id))
                    .count()
                    == 1
            });
            let sent = match unique {
                Some(id) => Cow::Borrowed(id),
                None => Cow::Owned(format!("{prefix}_{index}_{position}")),
            };
            (own, sent)
        })
        .collect()
}

/// The id sent for a tool result: that of the call it answers, found by its key (`#<position>`
/// for a call without a usable id), else by its call id, else by its place among the results.
pub(crate) fn result_id<'a>(
    prefix: &str,
    calls: &[(Option<&'a str>, Cow<'a, str>)],
    answered: usize,
    result: &'a ToolResultMessage,
    index: usize,
) -> Cow<'a, str> {
    let by_position = key_position(&result.key).and_then(|position| calls.get(position));
    if let Some((_, sent)) = by_position {
        return sent.clone();
    }
    if let Some(id) = result.call_id.as_deref().filter(|id| !id.is_empty()) {
        return match calls.iter().find(|(own, _)| *own == Some(id)) {
            Some((_, sent)) => sent.clone(),
            None => Cow::Borrowed(id),
        };
    }
    match calls.get(answered) {
        Some((_, sent)) => sent.clone(),
        None => Cow::Owned(format!("{prefix}_result_{index}")),
    }
}
