//! Durable approval: a run pauses on a money-moving tool and the process exits; a later
//! invocation — after a restart, or on another machine sharing the store — resumes it with a
//! person's decision. The paused run and the conversation live in one SQLite file.
//!
//! ```text
//! cargo run --example durable_approval                 # pauses, prints the run id, exits
//! cargo run --example durable_approval -- allow RUN_ID # resumes: the transfer runs
//! cargo run --example durable_approval -- deny RUN_ID  # resumes: the model is told no
//! ```
//!
//! The model is a **scripted stand-in** (its replies are fixed in this file), so the example
//! runs offline. The store is `$DURABLE_APPROVAL_DB`, or `tool-sdk-durable-approval.db` in the
//! system's temporary directory.

use std::path::PathBuf;
use std::sync::Arc;

use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::{Orphans, RunId, RunStore as _, SqliteStore};
use tool_sdk::{
    store::ChatMemory, tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry,
};

/// Moves money between accounts; every transfer needs a person's approval.
#[tool(confirm)]
fn transfer(
    /// Account to send the money to.
    to: String,
    /// Amount in euros.
    amount_eur: u64,
) -> String {
    format!("sent {amount_eur} EUR to {to}")
}

const CONVERSATION: &str = "durable-approval";

fn database() -> PathBuf {
    std::env::var_os("DURABLE_APPROVAL_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tool-sdk-durable-approval.db"))
}

fn agent(store: &Arc<SqliteStore>, replies: Vec<AssistantMessage>) -> ToolLoop {
    let mut registry = ToolRegistry::new();
    registry
        .register(TransferTool)
        .expect("a valid, unique tool name");
    ToolLoop::new(ScriptedModel::new(replies), registry).with_store(store.clone())
}

fn answer(text: &str) -> AssistantMessage {
    AssistantMessage {
        text: Some(text.into()),
        tool_calls: vec![],
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = database();
    let store = Arc::new(SqliteStore::open(&path)?);
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("store: {}", path.display());

    match args.as_slice() {
        [] => {
            // Scripted model: asks to pay the invoice.
            let agent = agent(
                &store,
                vec![AssistantMessage::with_tool_calls(vec![ToolCall::new(
                    "call_1",
                    "transfer",
                    r#"{"to": "SUPPLIER-9", "amount_eur": 2400}"#,
                )])],
            );
            // At start-up: roll back whatever a crashed predecessor left half done.
            let recovered = agent.recover(Orphans::All).await?;
            println!("recovered {} interrupted run(s)", recovered.len());

            let mut conversation = store.load(CONVERSATION).await?;
            conversation.push(Message::user("Pay SUPPLIER-9's invoice of 2,400 EUR."));
            let outcome = agent.run(&mut conversation).await;
            store.store(CONVERSATION, &conversation).await?;
            let LoopStatus::Paused(paused) = outcome.status else {
                println!("the run ended without pausing: {:?}", outcome.status);
                return Ok(());
            };
            for pending in paused.calls().filter(|c| c.awaiting) {
                println!(
                    "waiting for a decision: {} {}",
                    pending.call.name, pending.call.arguments
                );
            }
            let id = paused.id();
            println!("paused run {id}; this process exits now. Decide with:");
            println!("  cargo run --example durable_approval -- allow {id}");
            println!("  cargo run --example durable_approval -- deny {id}");
        }
        [verdict, id] if verdict == "allow" || verdict == "deny" => {
            // Scripted model: what it would say once it reads the transfer's result.
            let reply = if verdict == "allow" {
                "Paid: 2,400 EUR went to SUPPLIER-9."
            } else {
                "The transfer was declined; the invoice is still open."
            };
            let agent = agent(&store, vec![answer(reply)]);
            let id = RunId::from_string(id.clone());
            let paused = match store.load_paused(&id).await {
                Ok(paused) => paused,
                Err(error) => {
                    // Unknown, or decided already: a paused run resumes once.
                    eprintln!("{error}");
                    std::process::exit(1);
                }
            };
            let mut decide = paused.decide();
            for pending in paused.calls().filter(|c| c.awaiting) {
                decide = if verdict == "allow" {
                    decide.allow(&pending.key)
                } else {
                    decide.deny(&pending.key, "The treasurer declined this transfer.")
                };
            }
            let decisions = decide.build();
            let mut conversation = store.load(CONVERSATION).await?;
            let before = conversation.len();
            let cancel = tool_sdk::run::CancellationToken::new();
            let outcome = agent
                .resume(&mut conversation, &id, &decisions)
                .with_cancel(&cancel)
                .await?;
            store.store(CONVERSATION, &conversation).await?;
            for message in &conversation[before..] {
                if let Message::Tool(result) = message {
                    println!(
                        "tool {} ({:?}): {}",
                        result.name, result.status, result.content
                    );
                }
            }
            match outcome.status {
                LoopStatus::Answered(reply) => {
                    println!("model: {}", reply.text.unwrap_or_default());
                }
                other => println!("the run ended: {other:?}"),
            }
        }
        _ => {
            eprintln!("usage: durable_approval [allow RUN_ID | deny RUN_ID]");
            std::process::exit(2);
        }
    }
    Ok(())
}
