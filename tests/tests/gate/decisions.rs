//! Decision gating: pausing a reply, keys, decisions, and the tamper-proof paused state.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use proptest::prelude::*;
use tool_sdk::{define_tool, model::ToolResultStatus, AssistantMessage, ToolCall, ToolRegistry};
use tool_sdk::{
    gate::{
        fingerprint, CallResult, ConfirmationPolicy, Gate, GateError, GateOutcome, Kept, Sealer,
        ToolCallDecision, ToolCallDecisions,
    },
    model::tool_call_keys,
    store::{InMemoryRunStore, PausedTurn, RunId},
};

/// A registry whose tools count their runs: `pay` (declared `confirm = amount > 100`),
/// `delete_file` (declared `confirm`), `read_file` and `send_mail` (no declaration).
fn registry(runs: &Arc<AtomicUsize>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let r = Arc::clone(runs);
    registry
        .register(define_tool!(
            /// Pays an amount.
            #[tool(name = "pay", confirm = |amount: &u64| *amount > 100)]
            move |amount: u64| { r.fetch_add(1, Ordering::SeqCst); format!("paid {amount}") }
        ))
        .unwrap();
    let r = Arc::clone(runs);
    registry
        .register(define_tool!(
            /// Deletes a file.
            #[tool(name = "delete_file", confirm)]
            move |path: String| { r.fetch_add(1, Ordering::SeqCst); format!("deleted {path}") }
        ))
        .unwrap();
    let r = Arc::clone(runs);
    registry
        .register(define_tool!(
            /// Reads a file.
            #[tool(name = "read_file")]
            move |path: String| { r.fetch_add(1, Ordering::SeqCst); format!("contents of {path}") }
        ))
        .unwrap();
    let r = Arc::clone(runs);
    registry
        .register(define_tool!(
            /// Sends mail.
            #[tool(name = "send_mail")]
            move |to: String| { r.fetch_add(1, Ordering::SeqCst); format!("sent to {to}") }
        ))
        .unwrap();
    registry
}

fn offered(registry: &ToolRegistry) -> Vec<String> {
    registry.names().map(str::to_owned).collect()
}

fn reply(calls: Vec<ToolCall>) -> AssistantMessage {
    AssistantMessage::with_tool_calls(calls)
}

/// Resumes `paused` as a server does: kept in a store under an id, resumed by the id.
async fn resume(
    gate: &Gate,
    registry: &ToolRegistry,
    paused: &PausedTurn,
    decisions: &ToolCallDecisions,
) -> Result<Vec<tool_sdk::gate::CallOutcome>, GateError> {
    let store = InMemoryRunStore::new();
    gate.keep(&store, paused).await.unwrap();
    let kept = Kept::Stored {
        store: &store,
        id: paused.id(),
    };
    gate.resume(registry, kept, decisions).await
}

async fn pause(gate: &Gate, registry: &ToolRegistry, reply: &AssistantMessage) -> PausedTurn {
    match gate.execute(registry, &offered(registry), reply).await {
        GateOutcome::Paused(paused) => paused,
        other => panic!("expected a pause, got {other:?}"),
    }
}

#[tokio::test]
async fn when_one_call_needs_a_decision_no_call_of_the_reply_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let reply = reply(vec![
        ToolCall::new("a", "read_file", r#"{"path":"/etc/motd"}"#),
        ToolCall::new("b", "pay", r#"{"amount": 500}"#),
        ToolCall::new("c", "pay", r#"{"amount": 5}"#),
        ToolCall::new("d", "delete_file", r#"{"path":"/tmp/x"}"#),
    ]);
    let outcome = Gate::default()
        .execute(&registry, &offered(&registry), &reply)
        .await;
    let paused = outcome.paused().expect("the reply waits");
    assert_eq!(paused.awaiting(), ["b", "d"]);
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "nothing ran, not even read_file"
    );
}

#[tokio::test]
async fn without_calls_needing_decisions_everything_runs_in_order() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let reply = reply(vec![
        ToolCall::new("a", "read_file", r#"{"path":"/a"}"#),
        ToolCall::new("b", "pay", r#"{"amount": 5}"#),
    ]);
    let GateOutcome::Completed(outcomes) = Gate::default()
        .execute(&registry, &offered(&registry), &reply)
        .await
    else {
        panic!("expected completion");
    };
    let contents: Vec<_> = outcomes.iter().map(|o| o.to_message().content).collect();
    assert_eq!(contents, ["contents of /a", "paid 5"]);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn policies_set_on_the_gate_add_to_what_tools_declare() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let by_name = Gate::new(ConfirmationPolicy::new().with_confirmed_tool("send_mail"));
    let by_call = Gate::new(
        ConfirmationPolicy::new().with_confirm_when(|call| call.arguments.contains("/secret")),
    );
    let mail = reply(vec![ToolCall::new("m", "send_mail", r#"{"to":"x@y"}"#)]);
    let secret = reply(vec![ToolCall::new(
        "s",
        "read_file",
        r#"{"path":"/secret"}"#,
    )]);
    assert_eq!(by_name.awaiting(&registry, &mail), ["m"]);
    assert!(by_name.awaiting(&registry, &secret).is_empty());
    assert_eq!(by_call.awaiting(&registry, &secret), ["s"]);
    assert!(
        Gate::default().awaiting(&registry, &mail).is_empty(),
        "default: no confirmation"
    );
    // The tools' own declarations hold under any policy.
    let delete = reply(vec![ToolCall::new("d", "delete_file", r#"{"path":"/x"}"#)]);
    assert_eq!(by_name.awaiting(&registry, &delete), ["d"]);
}

#[tokio::test]
async fn decisions_run_allowed_calls_and_answer_denied_ones_in_reply_order() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let original = reply(vec![
        ToolCall::new("a", "read_file", r#"{"path":"/a"}"#),
        ToolCall::new("b", "pay", r#"{"amount": 500}"#),
        ToolCall::new("c", "delete_file", r#"{"path":"/tmp/x"}"#),
    ]);
    let gate = Gate::default();
    let paused = pause(&gate, &registry, &original).await;
    let decisions = paused
        .decide()
        .deny("b", "Payment refused by Ana.")
        .allow("c")
        .allow("a")
        .build();
    let outcomes = resume(&gate, &registry, &paused, &decisions).await.unwrap();
    let messages: Vec<_> = outcomes.iter().map(|o| o.to_message()).collect();
    assert_eq!(
        messages.iter().map(|m| m.key.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert_eq!(messages[0].content, "contents of /a");
    assert_eq!(messages[1].content, "Payment refused by Ana.");
    assert_eq!(messages[1].status, ToolResultStatus::Denied);
    assert_eq!(messages[2].content, "deleted /tmp/x");
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the denied call never ran");
    assert_eq!(paused.reply(), &original, "the reply is never changed");
}

#[tokio::test]
async fn bad_decisions_are_refused_with_a_specific_error_and_nothing_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let gate = Gate::default();
    let paused = pause(
        &gate,
        &registry,
        &reply(vec![
            ToolCall::new("a", "read_file", r#"{"path":"/a"}"#),
            ToolCall::new("b", "delete_file", r#"{"path":"/b"}"#),
        ]),
    )
    .await;
    let missing = paused.decide().allow("b").build();
    assert_eq!(
        resume(&gate, &registry, &paused, &missing)
            .await
            .unwrap_err(),
        GateError::MissingDecision { key: "a".into() }
    );
    let twice = paused
        .decide()
        .allow("a")
        .allow("b")
        .deny("b", "no")
        .build();
    assert_eq!(
        resume(&gate, &registry, &paused, &twice).await.unwrap_err(),
        GateError::DuplicateDecision { key: "b".into() }
    );
    let unknown = paused.decide().allow_rest().deny("zzz", "no").build();
    assert_eq!(
        resume(&gate, &registry, &paused, &unknown)
            .await
            .unwrap_err(),
        GateError::UnknownKey { key: "zzz".into() }
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_allowance_binds_to_the_arguments_it_was_given_for() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let gate = Gate::default();
    let approved = ToolCall::new("d", "delete_file", r#"{"path":"/tmp/a"}"#);
    // An allowance of `approved`, sent for the pause of a reply with the same key.
    let allowance = |paused: &PausedTurn| {
        let mut decisions = ToolCallDecisions::for_pause(paused.pause().clone());
        decisions.push(ToolCallDecision::allow("d", fingerprint(&approved)));
        decisions
    };
    // The same key, in another paused reply, with other arguments.
    let other = pause(
        &gate,
        &registry,
        &reply(vec![ToolCall::new("d", "delete_file", r#"{"path":"/"}"#)]),
    )
    .await;
    assert_eq!(
        resume(&gate, &registry, &other, &allowance(&other))
            .await
            .unwrap_err(),
        GateError::ArgumentsChanged { key: "d".into() }
    );
    // Reordered keys and whitespace are the same arguments.
    let same = pause(
        &gate,
        &registry,
        &reply(vec![ToolCall::new(
            "d",
            "delete_file",
            "{ \"path\" : \"/tmp/a\" }",
        )]),
    )
    .await;
    assert!(resume(&gate, &registry, &same, &allowance(&same))
        .await
        .is_ok());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_allowed_call_of_a_tool_the_request_did_not_offer_never_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let gate = Gate::default();
    let calls = reply(vec![
        ToolCall::new("a", "delete_file", r#"{"path":"/a"}"#),
        ToolCall::new("b", "read_file", r#"{"path":"/b"}"#),
    ]);
    // The request offered only delete_file; read_file is registered but was not offered.
    let paused = gate
        .check(&registry, &["delete_file".to_owned()], &calls)
        .unwrap();
    let outcomes = resume(
        &gate,
        &registry,
        &paused,
        &paused.decide().allow_rest().build(),
    )
    .await
    .unwrap();
    assert!(matches!(outcomes[1].result, CallResult::NotOffered));
    assert_eq!(outcomes[1].to_message().status, ToolResultStatus::Error);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "only delete_file ran");
}

#[tokio::test]
async fn replies_without_ids_with_empty_ids_and_with_duplicate_ids_are_keyed_and_gated() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let gate = Gate::default();
    let cases = [
        // As Gemini sends them: no ids at all.
        vec![
            ToolCall::without_id("read_file", r#"{"path":"/a"}"#),
            ToolCall::without_id("delete_file", r#"{"path":"/b"}"#),
        ],
        // Empty ids.
        vec![
            ToolCall::new("", "read_file", r#"{"path":"/a"}"#),
            ToolCall::new("", "delete_file", r#"{"path":"/b"}"#),
        ],
        // One id twice.
        vec![
            ToolCall::new("same", "read_file", r#"{"path":"/a"}"#),
            ToolCall::new("same", "delete_file", r#"{"path":"/b"}"#),
        ],
    ];
    for calls in cases {
        let reply = reply(calls);
        assert_eq!(tool_call_keys(&reply), ["#0", "#1"]);
        let paused = pause(&gate, &registry, &reply).await;
        assert_eq!(paused.awaiting(), ["#1"]);
        let decisions = paused.decide().deny("#1", "no").allow("#0").build();
        let outcomes = resume(&gate, &registry, &paused, &decisions).await.unwrap();
        assert_eq!(outcomes[0].to_message().content, "contents of /a");
        assert_eq!(outcomes[1].to_message().status, ToolResultStatus::Denied);
        assert_eq!(
            outcomes[1].to_message().call_id,
            reply.tool_calls[1].id,
            "ids stay as given"
        );
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

proptest! {
    #[test]
    fn keys_are_always_distinct_and_one_per_call(
        ids in proptest::collection::vec(
            proptest::option::of(prop_oneof![
                Just(String::new()), Just("a".to_owned()), Just("b".to_owned()),
                Just("#0".to_owned()), Just("#1".to_owned()), Just("#2".to_owned()), "[a-c#0-9]{0,3}",
            ]),
            0..12,
        )
    ) {
        let reply = reply(ids.iter().map(|id| ToolCall { id: id.clone(), name: "t".into(), arguments: "{}".into() }).collect());
        let keys = tool_call_keys(&reply);
        prop_assert_eq!(keys.len(), ids.len());
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), keys.len(), "keys {:?} from ids {:?}", keys, ids);
        for (key, id) in keys.iter().zip(&ids) {
            let unique = id.as_ref().is_some_and(|id| ids.iter().filter(|other| other.as_ref() == Some(id)).count() == 1);
            if unique && !id.as_deref().unwrap_or("").is_empty() && !id.as_deref().unwrap_or("").starts_with('#') {
                prop_assert_eq!(Some(key), id.as_ref());
            } else {
                prop_assert!(key.starts_with('#'));
            }
        }
    }
}

fn sealer() -> Sealer {
    Sealer::new(b"an application key of 32 bytes!!").unwrap()
}

async fn sealed(registry: &ToolRegistry) -> (PausedTurn, String) {
    let paused = pause(
        &Gate::default(),
        registry,
        &reply(vec![
            ToolCall::new("a", "read_file", r#"{"path":"/a"}"#),
            ToolCall::new("b", "delete_file", r#"{"path":"/tmp/b"}"#),
        ]),
    )
    .await;
    let token = sealer().seal(&paused).unwrap();
    (paused, token)
}

#[tokio::test]
async fn a_sealed_turn_resumes_once_across_sealers_of_one_key() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let (paused, token) = sealed(&registry).await;
    let gate = Gate::default();
    let decisions = paused.decide().allow_rest().build();
    // Two sealers built from one key, as two handlers of one process would build them.
    let (first, second) = (sealer(), sealer());
    gate.resume(
        &registry,
        Kept::Sealed {
            sealer: &first,
            token: &token,
        },
        &decisions,
    )
    .await
    .unwrap();
    assert_eq!(
        gate.resume(
            &registry,
            Kept::Sealed {
                sealer: &second,
                token: &token
            },
            &decisions
        )
        .await
        .unwrap_err(),
        GateError::Replayed
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2, "each call ran once");
}

#[tokio::test]
async fn a_sealed_turn_resumes_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let (paused, token) = sealed(&registry).await;
    let sealer = sealer();
    let gate = Gate::default();
    let decisions = paused.decide().allow_rest().build();
    // Decisions that do not fit do not use the token up.
    let wrong = paused.decide().allow("a").build();
    assert!(matches!(
        gate.resume(
            &registry,
            Kept::Sealed {
                sealer: &sealer,
                token: &token
            },
            &wrong
        )
        .await,
        Err(GateError::MissingDecision { .. })
    ));
    let outcomes = gate
        .resume(
            &registry,
            Kept::Sealed {
                sealer: &sealer,
                token: &token,
            },
            &decisions,
        )
        .await
        .unwrap();
    assert_eq!(outcomes.len(), 2);
    assert_eq!(
        gate.resume(
            &registry,
            Kept::Sealed {
                sealer: &sealer,
                token: &token
            },
            &decisions
        )
        .await
        .unwrap_err(),
        GateError::Replayed
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_token_with_any_byte_changed_is_refused() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let (_, token) = sealed(&registry).await;
    let sealer = sealer();
    let bytes = token.as_bytes();
    for i in 0..bytes.len() {
        for replacement in [b'A', b'z', b'.', b'-'] {
            if bytes[i] == replacement {
                continue;
            }
            let mut forged = bytes.to_vec();
            forged[i] = replacement;
            let forged = String::from_utf8(forged).unwrap();
            let error = sealer.open(&forged).unwrap_err();
            assert!(
                matches!(error, GateError::BadSignature | GateError::Malformed(_)),
                "byte {i} -> {}: {error:?}",
                replacement as char
            );
        }
    }
    assert!(sealer.open(&token).is_ok());
}

#[tokio::test]
async fn changing_any_field_of_the_sealed_content_breaks_the_signature() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let (_, token) = sealed(&registry).await;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let (content, signature) = token.split_once('.').unwrap();
    let payload: serde_json::Value =
        serde_json::from_slice(&engine.decode(content).unwrap()).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "nonce",
            Box::new(|p| p["nonce"] = "AAAAAAAAAAAAAAAAAAAAAA".into()),
        ),
        (
            "expiry",
            Box::new(|p| p["expires_at"] = (p["expires_at"].as_u64().unwrap() + 3600).into()),
        ),
        (
            "call id",
            Box::new(|p| p["turn"]["reply"]["tool_calls"][0]["id"] = "z".into()),
        ),
        (
            "tool name",
            Box::new(|p| p["turn"]["reply"]["tool_calls"][1]["name"] = "read_file".into()),
        ),
        (
            "arguments",
            Box::new(|p| {
                p["turn"]["reply"]["tool_calls"][1]["arguments"] = r#"{"path":"/"}"#.into()
            }),
        ),
        (
            "text",
            Box::new(|p| p["turn"]["reply"]["text"] = "hi".into()),
        ),
        (
            "offered tools",
            Box::new(|p| {
                p["turn"]["request_tools"]
                    .as_array_mut()
                    .unwrap()
                    .push("rm".into())
            }),
        ),
        (
            "awaiting keys",
            Box::new(|p| p["turn"]["awaiting"] = serde_json::json!([])),
        ),
        ("version", Box::new(|p| p["v"] = 2.into())),
    ];
    for (field, edit) in edits {
        let mut changed = payload.clone();
        edit(&mut changed);
        let forged = format!(
            "{}.{signature}",
            engine.encode(serde_json::to_vec(&changed).unwrap())
        );
        assert_eq!(
            sealer().open(&forged).unwrap_err(),
            GateError::BadSignature,
            "{field}"
        );
    }
    // Another key does not verify either.
    let other = Sealer::new(b"another application key, 32 byte").unwrap();
    assert_eq!(other.open(&token).unwrap_err(), GateError::BadSignature);
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let (paused, _) = sealed(&registry).await;
    let sealer = sealer().with_ttl(Duration::from_secs(60));
    let token = sealer.seal(&paused).unwrap();
    assert!(sealer
        .open_at(&token, SystemTime::now() + Duration::from_secs(30))
        .is_ok());
    assert!(matches!(
        sealer.open_at(&token, SystemTime::now() + Duration::from_secs(61)),
        Err(GateError::Expired { .. })
    ));
    assert_eq!(Sealer::new(b"short").unwrap_err(), GateError::WeakKey(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stored_turn_resumes_once_even_when_two_resumes_race() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Arc::new(registry(&runs));
    let gate = Arc::new(Gate::default());
    let store = Arc::new(InMemoryRunStore::new());
    let paused = pause(
        &gate,
        &registry,
        &reply(vec![ToolCall::new("d", "delete_file", r#"{"path":"/x"}"#)]),
    )
    .await;
    let decisions = paused.decide().allow_rest().build();
    gate.keep(&*store, &paused).await.unwrap();
    let id = paused.id().clone();
    assert_eq!(id.as_str().len(), 22, "128 random bits, base64url");

    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (registry, gate, store, id, decisions) = (
            Arc::clone(&registry),
            Arc::clone(&gate),
            Arc::clone(&store),
            id.clone(),
            decisions.clone(),
        );
        tasks.push(tokio::spawn(async move {
            gate.resume(
                &registry,
                Kept::Stored {
                    store: &*store,
                    id: &id,
                },
                &decisions,
            )
            .await
        }));
    }
    let mut won = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => won += 1,
            Err(GateError::AlreadyDecided { pause }) => assert_eq!(&pause, decisions.pause()),
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(won, 1);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let unknown = RunId::from_string("nope");
    assert!(matches!(
        gate.resume(
            &registry,
            Kept::Stored {
                store: &*store,
                id: &unknown
            },
            &decisions
        )
        .await,
        Err(GateError::UnknownTurn { id }) if id == unknown
    ));
}

#[tokio::test]
async fn decisions_built_for_another_pause_are_refused_as_such_and_nothing_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let gate = Gate::default();
    let (first, token) = sealed(&registry).await;
    let (second, _) = sealed(&registry).await;
    // Decisions built from the other turn: the same calls, another pause.
    let theirs = second.decide().allow_rest().build();

    let refused = gate.resolve(&first, &theirs).unwrap_err();
    let sealer = sealer();
    let kept = Kept::Sealed {
        sealer: &sealer,
        token: &token,
    };
    let resumed = gate.resume(&registry, kept, &theirs).await.unwrap_err();
    for error in [&refused, &resumed] {
        assert_eq!(
            *error,
            GateError::OtherPause {
                decisions_for: theirs.pause().clone(),
                paused_at: first.pause().clone(),
            }
        );
        assert!(error.is_decisions(), "{error:?}");
        let message = error.to_string();
        assert!(message.contains("another pause"), "{message}");
        assert!(!message.contains("decided already"), "{message}");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // The token was not used up: the right decisions still resume it.
    let ours = first.decide().allow_rest().build();
    let kept = Kept::Sealed {
        sealer: &sealer,
        token: &token,
    };
    gate.resume(&registry, kept, &ours).await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// Archives a report; every call needs a person's decision.
#[tool_sdk::tool(confirm)]
fn archive(report: String, days: u32) -> String {
    format!("archived {report} for {days} days")
}

#[tokio::test]
async fn a_call_that_cannot_run_is_never_put_to_a_person() {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut registry = registry(&runs);
    registry.register(ArchiveTool).unwrap();
    let dynamic = tool_sdk::register::DynamicTool::new(
        "wipe",
        "Wipes a disk.",
        serde_json::json!({"type": "object", "properties": {"disk": {"type": "string"}}, "required": ["disk"]}),
        |_: serde_json::Value| async { "wiped" },
    )
    .unwrap()
    .with_options(tool_sdk::define::ToolOptions::default().with_confirm(tool_sdk::define::Confirm::Always));
    registry.register(dynamic).unwrap();
    let gate = Gate::new(
        ConfirmationPolicy::new()
            .with_confirmed_tool("send_mail")
            .with_confirmed_tool("launch"),
    );
    // Each gated, none able to run: arguments of the wrong type (define_tool!, #[tool], a
    // dynamic tool), a field missing (a tool the policy gates), a tool not registered.
    let reply = AssistantMessage::with_tool_calls(vec![
        ToolCall::new("a", "delete_file", r#"{"path": 5}"#),
        ToolCall::new("b", "archive", r#"{"report": "q3", "days": -1}"#),
        ToolCall::new("c", "wipe", r#"{"disk": ["sda"]}"#),
        ToolCall::new("d", "send_mail", "{}"),
        ToolCall::new("e", "launch", "{}"),
    ]);
    assert_eq!(gate.awaiting(&registry, &reply), Vec::<String>::new());
    let outcome = gate.execute(&registry, offered(&registry), &reply).await;
    let GateOutcome::Completed(outcomes) = outcome else {
        panic!("paused to ask about calls that cannot run: {outcome:?}")
    };
    for outcome in &outcomes[..4] {
        assert!(
            matches!(&outcome.result, CallResult::Ran(Err(error)) if error.to_string().contains("argument")),
            "{outcome:?}"
        );
    }
    assert!(matches!(outcomes[4].result, CallResult::NotOffered));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // Beside one that can run, they still do not wait: only it does.
    let reply = AssistantMessage::with_tool_calls(vec![
        ToolCall::new("a", "delete_file", r#"{"path": 5}"#),
        ToolCall::new("f", "delete_file", r#"{"path": "/tmp/x"}"#),
    ]);
    assert_eq!(gate.awaiting(&registry, &reply), ["f"]);
}
