//! Three tools and a loop running a model's calls: a payment waits for a person, an argument
//! error goes back to the model, and a failed email rolls back what succeeded, newest first.
//! The model is the one the environment names (`OPENAI_BASE_URL` and `OPENAI_MODEL`, ...),
//! or else a clearly labelled script.

use tool_sdk::{tool, ToolLoop};

/// Books nights in a hotel; cancelled again if a later step fails.
#[tool(compensate = |_, booking: String| println!("hotel      {booking} cancelled"))]
fn book_room(city: String, nights: u32) -> String {
    format!("{city}-{nights}N")
}

/// Pays for a booking, once a person allows it; refunded if a later step fails.
#[tool(confirm, compensate = |_, receipt: String| println!("bank       refunded: {receipt}"))]
fn pay(booking: String, euros: u32) -> String {
    format!("paid {euros} EUR for {booking}")
}

/// Emails the booking to the guest.
#[tool]
fn email(to: String) -> Result<String, String> {
    Err(format!("cannot reach {to}: mailbox full"))
}

/// The model's replies, one a line, when the environment names no model: a script.
const SCRIPT: &str = r#"book_room {"city": "Lisbon", "nights": "two"}
    book_room {"city": "Lisbon", "nights": 2}
    pay {"booking": "Lisbon-2N", "euros": 480}
    email {"to": "ana@example.com"}"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = (BookRoomTool, PayTool, EmailTool);
    let agent = ToolLoop::from_env_or(SCRIPT, tools)?.with_terminal();
    // The terminal shows each step and how the run ended; the outcome holds the same as data.
    let _outcome = agent.run("Book 2 nights in Lisbon, pay, email me").await;
    Ok(())
}
