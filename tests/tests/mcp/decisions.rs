//! A served call that needs a person's decision asks the host's user, through clients no one
//! here wrote: the Python `mcp` 2.x client on a 2026-07-28 session (input requests, the retry
//! with the request state) and in legacy mode (elicitation), the `mcp` 1.x client and the
//! TypeScript SDK's client (elicitation). A client that cannot be asked, and a server told to
//! refuse, refuse; a forged, replayed, expired or other call's request state runs nothing.
//!
//! The server is `tests/bin/mcp_test_server.rs`: `transfer` needs a decision above 1,000, and
//! `transfers_made` says how many transfers ran in its process.

use std::process::Command;

use std::sync::Arc;

use serde_json::{json, Value};
use tool_sdk::gate::Sealer;
use tool_sdk::mcp::{McpDecisions, McpError, McpServer};
use tool_sdk::store::InMemoryRunStore;
use tool_sdk::ToolRegistry;
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::mcp::{python, python_mcp1, script, OtherClient};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

fn allow() -> Value {
    json!({"action": "accept", "content": {"decision": "allow"}})
}

fn deny(reason: &str) -> Value {
    json!({"action": "accept", "content": {"decision": "deny", "reason": reason}})
}

/// A large transfer, then the count of transfers that ran.
fn gated_call() -> Value {
    json!([
        {"name": "transfer", "arguments": {"to": "ana", "amount": 5000}},
        {"name": "transfers_made", "arguments": {}},
    ])
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn transfers_made(outcome: &Value) -> &str {
    text(&outcome["result"])
}

fn python_in(mode: &'static str) -> OtherClient {
    OtherClient::Python {
        python: python(),
        mode,
    }
}

/// Every client that asks its user, named by the protocol version it speaks (the TypeScript
/// client, which does not say, by its name).
fn asking_clients() -> Vec<(&'static str, OtherClient)> {
    vec![
        ("2026-07-28", python_in("auto")),
        ("2025-11-25", python_in("legacy")),
        ("2025-11-25", python_in("session")),
        (
            "2025-11-25",
            OtherClient::Python {
                python: python_mcp1(),
                mode: "session",
            },
        ),
        ("TypeScript SDK", OtherClient::TypeScript),
    ]
}

#[test]
fn an_allowed_call_runs_once_after_the_user_is_asked_about_its_arguments() {
    for (client_name, client) in asking_clients() {
        let seen = client.run_answering(&gated_call(), Some(&allow()), &[SERVER]);
        if let Some(version) = seen["protocolVersion"].as_str() {
            assert_eq!(version, client_name, "{client:?}");
        }
        let asked = seen["asked"].as_array().expect("`asked` is a list");
        assert_eq!(asked.len(), 1, "{client_name}: {seen}");
        assert_eq!(
            asked[0]["message"],
            r#"The assistant wants to call `transfer` with {"to":"ana","amount":5000}. Allow it?"#,
            "{client_name}"
        );
        assert_eq!(
            asked[0]["requestedSchema"]["properties"]["decision"]["oneOf"],
            json!([{"const": "allow", "title": "Allow"}, {"const": "deny", "title": "Deny"}]),
            "{client_name}"
        );
        let ran = &seen["calls"][0]["result"];
        assert_eq!(ran["isError"], false, "{client_name}: {ran}");
        assert_eq!(text(ran), "sent 5000 to ana", "{client_name}");
        assert_eq!(
            transfers_made(&seen["calls"][1]),
            "1",
            "{client_name}: {seen}"
        );
    }
}

#[test]
fn a_denied_call_does_not_run_and_its_error_carries_the_reason() {
    for (client_name, client) in asking_clients() {
        let seen = client.run_answering(&gated_call(), Some(&deny("not this month")), &[SERVER]);
        let denied = &seen["calls"][0]["result"];
        assert_eq!(denied["isError"], true, "{client_name}: {denied}");
        assert_eq!(
            text(denied),
            "Error: the user denied the call of `transfer`: not this month",
            "{client_name}"
        );
        assert_eq!(
            transfers_made(&seen["calls"][1]),
            "0",
            "{client_name}: {seen}"
        );
    }
}

#[test]
fn a_declined_question_denies_the_call() {
    let declined = json!({"action": "decline"});
    let seen = python_in("auto").run_answering(&gated_call(), Some(&declined), &[SERVER]);
    assert_eq!(
        text(&seen["calls"][0]["result"]),
        "Error: the user declined the call of `transfer`; it was not run."
    );
    assert_eq!(transfers_made(&seen["calls"][1]), "0");
}

#[test]
fn a_client_without_elicitation_gets_a_refusal_naming_what_is_missing() {
    for (client_name, client) in asking_clients() {
        let seen = client.run(&gated_call(), &[SERVER]);
        let refused = &seen["calls"][0]["result"];
        assert_eq!(refused["isError"], true, "{client_name}: {refused}");
        assert_eq!(
            text(refused),
            "Error: calling `transfer` needs a person's decision, and this MCP client offers \
             no way to ask its user (it declares no form elicitation); the call was not run. \
             Ask the user to run it another way.",
            "{client_name}"
        );
        assert_eq!(transfers_made(&seen["calls"][1]), "0", "{client_name}");
    }
}

#[test]
fn a_server_told_to_refuse_never_asks() {
    for mode in ["auto", "legacy"] {
        let seen =
            python_in(mode).run_answering(&gated_call(), Some(&allow()), &[SERVER, "--refuse"]);
        assert_eq!(seen["asked"], json!([]), "{mode}");
        assert_eq!(
            text(&seen["calls"][0]["result"]),
            "Error: calling `transfer` needs a person's decision, which this MCP server does \
             not ask for; the call was not run. Ask the user to run it another way.",
            "{mode}"
        );
        assert_eq!(transfers_made(&seen["calls"][1]), "0", "{mode}");
    }
}

#[test]
fn a_call_that_needs_no_decision_is_not_asked_about() {
    let calls = json!([{"name": "transfer", "arguments": {"to": "ana", "amount": 10}}]);
    for mode in ["auto", "legacy"] {
        let seen = python_in(mode).run_answering(&calls, Some(&allow()), &[SERVER]);
        assert_eq!(seen["asked"], json!([]), "{mode}");
        assert_eq!(
            text(&seen["calls"][0]["result"]),
            "sent 10 to ana",
            "{mode}"
        );
    }
}

/// Runs `tests/mcp/request_state.py`: the gated transfer, then `steps`.
fn drive(steps: &Value, server_args: &[&str]) -> Value {
    let call = json!({"name": "transfer", "arguments": {"to": "ana", "amount": 5000}});
    let output = Command::new(python())
        .arg(script("request_state.py"))
        .arg(call.to_string())
        .arg(steps.to_string())
        .arg(SERVER)
        .args(server_args)
        .output()
        .expect("python starts");
    assert!(
        output.status.success(),
        "request_state.py failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("request_state.py prints JSON")
}

fn refused_with(outcome: &Value, message: &str) {
    assert_eq!(outcome["error"]["code"], -32602, "{outcome}");
    assert_eq!(outcome["error"]["message"], message, "{outcome}");
}

fn count() -> Value {
    json!({"call": {"name": "transfers_made", "arguments": {}}})
}

#[test]
fn a_tampered_request_state_runs_nothing_and_the_honest_one_runs_once() {
    let steps = json!([
        {"retry": "forged", "answer": allow()},
        {"retry": "issued", "answer": allow(), "arguments": {"to": "mallory", "amount": 5000}},
        {"retry": "issued", "answer": allow(), "arguments": {"to": "ana", "amount": 50000}},
        {"retry": "issued", "answer": null},
        {"retry": "issued", "answer": {"action": "accept", "content": {"decision": "maybe"}}},
        count(),
        {"retry": "issued", "answer": allow()},
        {"retry": "issued", "answer": allow()},
        count(),
    ]);
    let seen = drive(&steps, &[]);
    let first = &seen["first"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(
        first["inputRequests"]["decision"]["method"], "elicitation/create",
        "{first}"
    );
    let steps = &seen["steps"];
    refused_with(
        &steps[0],
        "the request state was not issued by this server, or was changed since; nothing ran",
    );
    for swapped in [&steps[1], &steps[2]] {
        refused_with(
            swapped,
            "the request state was issued for another call (another tool or other arguments); \
             nothing ran",
        );
    }
    refused_with(
        &steps[3],
        "the retry carries no answer under `decision`; nothing ran",
    );
    refused_with(
        &steps[4],
        "the answer's `decision` is neither \"allow\" nor \"deny\"; nothing ran",
    );
    assert_eq!(transfers_made(&steps[5]), "0", "{steps}");
    assert_eq!(text(&steps[6]["result"]), "sent 5000 to ana", "{steps}");
    refused_with(
        &steps[7],
        "the request state was used already; the call did not run again",
    );
    assert_eq!(transfers_made(&steps[8]), "1", "{steps}");
}

#[test]
fn an_expired_request_state_runs_nothing() {
    let steps = json!([
        {"sleep": 2.2},
        {"retry": "issued", "answer": allow()},
        count(),
    ]);
    let seen = drive(&steps, &["--state-ttl", "1"]);
    let steps = &seen["steps"];
    refused_with(
        &steps[1],
        "the request state has expired; nothing ran: call the tool again to be asked anew",
    );
    assert_eq!(transfers_made(&steps[2]), "0", "{steps}");
}

#[test]
fn an_allowance_past_the_policys_deadline_runs_nothing_and_uses_the_state_up() {
    let steps = json!([
        {"sleep": 0.5},
        {"retry": "issued", "answer": allow()},
        {"retry": "issued", "answer": allow()},
        count(),
    ]);
    let seen = drive(&steps, &["--deadline-ms", "200"]);
    let steps = &seen["steps"];
    // Answered, not refused: the client's model reads why the call did not run.
    let late = text(&steps[1]["result"]);
    assert_eq!(
        late,
        "Error: the user's answer about the call of `transfer` came after its deadline; it \
         was not run.",
        "{steps}"
    );
    refused_with(
        &steps[2],
        "the request state was used already; the call did not run again",
    );
    assert_eq!(transfers_made(&steps[3]), "0", "{steps}");
}

/// The key replicas of one server share.
const REPLICA_KEY: &str = "the replicas' request-state key, 32+ bytes";

/// Three replicas set up as `McpDecisions`' documentation says, sharing a key and a store: the
/// user allowed the call on the first, and the client's retry, carrying the one request state,
/// reaches each replica (a load balancer, a retried request, or a replay). The call runs once
/// in all; the other replicas refuse the state as used.
async fn one_allowed_request_state_runs_once_across_replicas(backend: Backend) {
    let place = place(backend, "mcp_replicas").await;
    let steps = json!([
        {"retry": "issued", "answer": allow(), "on": 0},
        {"retry": "issued", "answer": allow(), "on": 1},
        {"retry": "issued", "answer": allow(), "on": 2},
        {"call": {"name": "transfers_made", "arguments": {}}, "on": 0},
        {"call": {"name": "transfers_made", "arguments": {}}, "on": 1},
        {"call": {"name": "transfers_made", "arguments": {}}, "on": 2},
    ]);
    let args = [
        "--state-key".to_owned(),
        REPLICA_KEY.to_owned(),
        place.spec.clone(),
    ];
    let seen = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        drive(&steps, &args)
    })
    .await
    .unwrap();
    let steps = &seen["steps"];
    assert_eq!(text(&steps[0]["result"]), "sent 5000 to ana", "{steps}");
    for replayed in [&steps[1], &steps[2]] {
        refused_with(
            replayed,
            "the request state was used already; the call did not run again",
        );
    }
    let made: u64 = (3..6)
        .map(|step| transfers_made(&steps[step]).parse::<u64>().unwrap())
        .sum();
    assert_eq!(made, 1, "{steps}");
}

tool_sdk_tests::on_both_stores!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    one_allowed_request_state_runs_once_across_replicas,
);

/// Two servers sharing a key and a store, under different names (a server's replicas share
/// its name): a request state the first issued runs nothing on the second, which says why and
/// does not use it up, so it still runs once where it was issued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_runs_only_on_the_server_that_issued_it() {
    let place = place(Backend::Sqlite, "mcp_other_server").await;
    let steps = json!([
        {"retry": "issued", "answer": allow(), "on": 1},
        {"call": {"name": "transfers_made", "arguments": {}}, "on": 1},
        {"retry": "issued", "answer": allow(), "on": 0},
        {"call": {"name": "transfers_made", "arguments": {}}, "on": 0},
    ]);
    let args = [
        "--state-key".to_owned(),
        REPLICA_KEY.to_owned(),
        place.spec.clone(),
        "--name".to_owned(),
        "bank-{replica}".to_owned(),
    ];
    let seen = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        drive(&steps, &args)
    })
    .await
    .unwrap();
    let steps = &seen["steps"];
    refused_with(
        &steps[0],
        "the request state was issued by another server sharing this server's key, not by \
         `bank-1`; nothing ran",
    );
    assert_eq!(transfers_made(&steps[1]), "0", "{steps}");
    assert_eq!(text(&steps[2]["result"]), "sent 5000 to ana", "{steps}");
    assert_eq!(transfers_made(&steps[3]), "1", "{steps}");
}

/// A key given without a replay guard of its own is shared by something (replicas, or the
/// next start of this process) that would redeem each state again: the server is not built.
#[test]
fn a_shared_key_without_a_shared_replay_guard_is_refused() {
    let sealer = Sealer::new(REPLICA_KEY.as_bytes()).unwrap();
    let built = McpServer::builder("bank", "1.0.0")
        .with_decisions(McpDecisions::ask().with_sealer(sealer))
        .build(ToolRegistry::new());
    let Err(refused) = built else {
        panic!("a server was built with a key and this process's replay guard");
    };
    assert!(
        matches!(refused, McpError::InvalidSettings(_)),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("with_replay_guard"),
        "{refused}"
    );

    let guarded = Sealer::new(REPLICA_KEY.as_bytes())
        .unwrap()
        .with_replay_guard(Arc::new(InMemoryRunStore::new()));
    McpServer::builder("bank", "1.0.0")
        .with_decisions(McpDecisions::ask().with_sealer(guarded))
        .build(ToolRegistry::new())
        .unwrap();
}
