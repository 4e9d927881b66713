//! Checks the two ways a paused reply comes back from outside. (1) Any bytes, as a token, are
//! refused by `Sealer::open_at` unless they are a token sealed with the same key, and then they
//! open to exactly the turn that was sealed (the seed corpus holds one such token). (2) Any JSON,
//! as `ToolCallDecisions`, applied to a fixed `PausedTurn` by `Gate::resolve`, never panics and is
//! accepted exactly when they name the turn's pause, there is one decision per call, every key known, and every allowance
//! bound to its call's fingerprint; the resolutions then follow the decisions.
#![no_main]

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use tool_sdk::{gate::{Gate, Resolution, Sealer, ToolCallDecisions, Verdict, fingerprint}, model::tool_call_keys, store::PausedTurn};
use tool_sdk::{AssistantMessage, ToolCall};

/// The key of the seed token `corpus/decisions/token_*` (sealed at `SEALED_AT`).
const KEY: &[u8; 32] = b"tool-sdk fuzz key: 32 bytes long";
const SEALED_AT: u64 = 1_800_000_000;
/// The run and the pause of the fixed turn, which the seeds name.
const RUN: &str = "fuzz-run-0";
const PAUSE: &str = "fuzz-pause-0";

/// The paused reply: ids, no id, a shared id, arguments that are not JSON, an id starting with
/// `#`; `rm` is not offered. Its run and pause are fixed, as the seeds name them.
fn known_turn() -> &'static PausedTurn {
    static TURN: OnceLock<PausedTurn> = OnceLock::new();
    TURN.get_or_init(|| {
        let reply = AssistantMessage::with_tool_calls(vec![
            ToolCall::new("c1", "pay", r#"{"eur": 5, "to": "ana"}"#),
            ToolCall::without_id("lookup", r#"{"q":"tea"}"#),
            ToolCall::new("dup", "rm", r#"{"path":"/tmp/a"}"#),
            ToolCall::new("dup", "rm", "not json"),
            ToolCall::new("#9", "pay", "{}"),
        ]);
        let fresh = PausedTurn::new(reply, ["pay", "lookup"], ["c1", "#2"]);
        let mut stored = serde_json::to_value(fresh).expect("a paused turn is JSON");
        stored["pause"] = PAUSE.into();
        stored["run"]["id"] = RUN.into();
        serde_json::from_value(stored).expect("the same turn, of a fixed run and pause")
    })
}

fn sealer() -> &'static Sealer {
    static SEALER: OnceLock<Sealer> = OnceLock::new();
    SEALER.get_or_init(|| Sealer::new(KEY).expect("a 32-byte key"))
}

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

/// Whether `decisions` should be accepted for `turn`, and checks the resolutions when they are.
fn check_resolve(turn: &PausedTurn, decisions: &ToolCallDecisions) {
    let reply = turn.reply();
    let keys = tool_call_keys(reply);
    let given = decisions.decisions();
    let distinct: HashSet<&str> = given.iter().map(|d| d.key.as_str()).collect();
    let acceptable = decisions.pause() == turn.pause()
        && given.len() == keys.len()
        && distinct.len() == given.len()
        && given.iter().all(|d| keys.contains(&d.key))
        && keys.iter().zip(&reply.tool_calls).all(|(key, call)| {
            given
                .iter()
                .filter(|d| &d.key == key)
                .all(|d| match &d.verdict {
                    Verdict::Allow { fingerprint: bound }
                    | Verdict::AllowEdited {
                        fingerprint: bound, ..
                    } => *bound == fingerprint(call),
                    Verdict::Deny { .. } => true,
                })
        });

    let result = Gate::default().resolve(turn, decisions);
    assert_eq!(result.is_ok(), acceptable, "{result:?} for {decisions:?}");
    let Ok(resolutions) = result else {
        return;
    };
    assert_eq!(resolutions.len(), keys.len());
    for ((key, call), resolution) in keys.iter().zip(&reply.tool_calls).zip(&resolutions) {
        let decision = decisions.decision_on(key).expect("every call decided");
        let expected = match &decision.verdict {
            Verdict::Deny { message } => Resolution::Denied(message.clone()),
            Verdict::Allow { .. } | Verdict::AllowEdited { .. }
                if !turn.request_tools().contains(&call.name) =>
            {
                Resolution::NotOffered
            }
            Verdict::Allow { .. } => Resolution::Run,
            Verdict::AllowEdited { arguments, .. } => Resolution::RunEdited(arguments.clone()),
        };
        assert_eq!(resolution, &expected, "call `{key}`");
    }
}

fuzz_target!(|data: &[u8]| {
    // (1) A token from outside.
    let token = String::from_utf8_lossy(data);
    if let Ok(opened) = sealer().open_at(&token, at(SEALED_AT + 60)) {
        assert_eq!(
            opened.turn(),
            known_turn(),
            "a token opened to a turn never sealed"
        );
    }

    // (2) Decisions from outside.
    if let Ok(decisions) = serde_json::from_slice::<ToolCallDecisions>(data) {
        check_resolve(known_turn(), &decisions);
    }
});
