//! Human approval: a tool that moves money needs a person's decision. The reply is paused
//! before any of its calls runs, the waiting calls are shown with their arguments, a person
//! allows or denies each one, and the reply resumes from a sealed token.
//!
//! Decisions come from stdin when it is a terminal; otherwise (as in CI) they are scripted:
//! the large transfer is denied, everything else allowed.
//!
//! ```text
//! cargo run --example approval
//! ```

use std::io::{BufRead, IsTerminal, Write};

use tool_sdk::gate::{Gate, GateOutcome, Kept, Sealer};
use tool_sdk::{tool, AssistantMessage, ToolCall, ToolRegistry};

/// Moves money between accounts. Transfers above 1,000 EUR need a person's approval.
#[tool(confirm = above_limit)]
fn transfer(
    /// Account to take the money from.
    from: String,
    /// Account to send it to.
    to: String,
    /// Amount in euros.
    amount_eur: u64,
) -> String {
    format!("moved {amount_eur} EUR from {from} to {to}")
}

fn above_limit(_from: &String, _to: &String, amount_eur: &u64) -> bool {
    *amount_eur > 1_000
}

/// Shows an account's balance.
#[tool]
fn balance(account: String) -> String {
    format!("{account}: 12,400 EUR")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry.register(TransferTool)?;
    registry.register(BalanceTool)?;

    // What a model might answer; here, a fixed reply.
    let reply = AssistantMessage::with_tool_calls(vec![
        ToolCall::new("call_1", "balance", r#"{"account": "ACME-CHK"}"#),
        ToolCall::new(
            "call_2",
            "transfer",
            r#"{"from": "ACME-CHK", "to": "SUPPLIER-9", "amount_eur": 250}"#,
        ),
        ToolCall::new(
            "call_3",
            "transfer",
            r#"{"from": "ACME-CHK", "to": "UNKNOWN-77", "amount_eur": 9500}"#,
        ),
    ]);

    let gate = Gate::default();
    let paused = match gate.execute(&registry, registry.names(), &reply).await {
        GateOutcome::Paused(paused) => paused,
        GateOutcome::Completed(_) => return Err("nothing needed approval".into()),
        _ => return Err("unexpected outcome".into()),
    };
    println!(
        "Paused before running anything; waiting on {:?}\n",
        paused.awaiting()
    );

    // The paused turn leaves the server sealed; only this key can open it, once.
    let key = std::env::var("APPROVAL_KEY")
        .unwrap_or_else(|_| "example key: use 32+ random bytes!".into());
    let sealer = Sealer::new(key.as_bytes())?;
    let token = sealer.seal(&paused)?;
    println!(
        "sealed token ({} bytes) handed to the approval screen\n",
        token.len()
    );

    // The approval screen opens the token and shows every call.
    let opened = sealer.open(&token)?;
    let interactive = std::io::stdin().is_terminal();
    let mut builder = opened.turn().decide();
    for pending in opened.turn().calls() {
        let marker = if pending.awaiting {
            "needs approval"
        } else {
            "runs with the others"
        };
        println!(
            "[{}] {}({})  ({marker})",
            pending.key, pending.call.name, pending.call.arguments
        );
        if !pending.awaiting {
            builder = builder.allow(&pending.key);
            continue;
        }
        let allow = if interactive {
            print!("  allow? [y/N] ");
            std::io::stdout().flush()?;
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line)?;
            line.trim().eq_ignore_ascii_case("y")
        } else {
            // Scripted decision: deny transfers to accounts nobody knows.
            !pending.call.arguments.contains("UNKNOWN")
        };
        println!("  -> {}", if allow { "allowed" } else { "denied" });
        builder = if allow {
            builder.allow(&pending.key)
        } else {
            builder.deny(
                &pending.key,
                "A person denied this transfer. Ask before retrying.",
            )
        };
    }
    let decisions = builder.build();

    let outcomes = gate
        .resume(
            &registry,
            Kept::Sealed {
                sealer: &sealer,
                token: &token,
            },
            &decisions,
        )
        .await?;
    println!("\nResults, in the reply's order:");
    for outcome in &outcomes {
        let message = outcome.to_message();
        println!(
            "  [{}] {:?}: {}",
            message.key, message.status, message.content
        );
    }

    // The same token cannot be used again.
    let again = gate
        .resume(
            &registry,
            Kept::Sealed {
                sealer: &sealer,
                token: &token,
            },
            &decisions,
        )
        .await;
    println!(
        "\nReusing the token: {}",
        again.err().map(|e| e.to_string()).unwrap_or_default()
    );
    Ok(())
}
