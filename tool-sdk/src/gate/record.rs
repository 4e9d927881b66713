//! The decisions a paused turn was resumed with, written down as the run keeps them.

use std::time::SystemTime;

use crate::gate::{fingerprint, ToolCallDecisions, Verdict};
use crate::model::ToolCall;
use crate::store::{DecisionRecord, PausedTurn};

/// A record of each decision in `decisions` on a call of `turn` that waited for one, made at
/// `at`: the calls that ran without asking are no one's decision.
pub(crate) fn records(
    turn: &PausedTurn,
    decisions: &ToolCallDecisions,
    at: SystemTime,
) -> Vec<DecisionRecord> {
    turn.calls()
        .filter(|pending| pending.awaiting)
        .filter_map(|pending| {
            let decision = decisions.decision_on(&pending.key)?;
            let (allowed, message, edited) = match &decision.verdict {
                Verdict::Allow { .. } => (true, None, None),
                Verdict::AllowEdited { arguments, .. } => (true, None, Some(arguments)),
                Verdict::Deny { message } => (false, Some(message.clone()), None),
            };
            let edited_fingerprint = edited.map(|arguments| {
                fingerprint(&ToolCall {
                    arguments: arguments.clone(),
                    ..pending.call.clone()
                })
            });
            Some(DecisionRecord {
                pause: turn.pause().clone(),
                key: pending.key,
                tool: pending.call.name.clone(),
                fingerprint: fingerprint(pending.call),
                allowed,
                message,
                edited_arguments: edited.cloned(),
                edited_fingerprint,
                decider: decisions.decider().map(str::to_owned),
                decided_at: at,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AssistantMessage;

    #[test]
    fn each_waiting_call_s_decision_is_recorded_with_who_and_what() {
        let pay = ToolCall::new("c1", "pay", r#"{"euros":5}"#);
        let look = ToolCall::new("c2", "look", "{}");
        let wipe = ToolCall::new("c3", "wipe", "{}");
        let turn = PausedTurn::new(
            AssistantMessage::with_tool_calls(vec![pay.clone(), look, wipe]),
            ["pay", "look", "wipe"],
            ["c1", "c3"],
        );
        let decisions = turn
            .decide()
            .allow("c1")
            .allow("c2")
            .deny("c3", "not today")
            .build()
            .with_decider("ana");
        let at = SystemTime::UNIX_EPOCH;
        let written = records(&turn, &decisions, at);
        let read: Vec<_> = written
            .iter()
            .map(|record| {
                (
                    record.key.as_str(),
                    record.tool.as_str(),
                    record.allowed,
                    record.message.as_deref(),
                    record.decider.as_deref(),
                )
            })
            .collect();
        // The call that did not wait (`c2`) is no one's decision.
        assert_eq!(
            read,
            [
                ("c1", "pay", true, None, Some("ana")),
                ("c3", "wipe", false, Some("not today"), Some("ana")),
            ]
        );
        assert_eq!(written[0].fingerprint, fingerprint(&pay));
        assert_eq!(&written[0].pause, turn.pause());
        assert_eq!(written[0].decided_at, at);
    }
}
