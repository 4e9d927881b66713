//! A travel desk whose risky calls wait for a person, decided in a browser: three runs pause at
//! start, and the page at the printed URL shows each with its calls. Allow or deny them; the
//! run goes on and the page shows the answer, what ran, and what was rolled back.
//!
//! The model is the one the environment names (`OPENAI_BASE_URL` and `OPENAI_MODEL`, ...), or
//! else a clearly labelled script: a stand-in that calls the tools a request names and then
//! reports what came back.

use std::sync::Arc;

use tool_sdk::approvals::ApprovalPage;
use tool_sdk::model::{
    self, ChatModel, ChatRequest, ChatResponse, Message, ModelFuture, ToolResultStatus,
};
use tool_sdk::register::IntoRegistry as _;
use tool_sdk::run::{CancellationToken, LoopStatus, ToolLoop};
use tool_sdk::store::InMemoryChatMemory;
use tool_sdk::{tool, AssistantMessage, ToolCall};

/// Books nights in a hotel; cancelled again if a later step fails.
#[tool(confirm, compensate = |_, booking: String| println!("hotel      {booking} cancelled"))]
fn book_hotel(city: String, nights: u32) -> String {
    println!("hotel      booked {nights} nights in {city}");
    format!("{city}-{nights}N")
}

/// Charges the company card, whose limit is 400 EUR.
#[tool(confirm)]
fn charge_card(euros: u32) -> Result<String, String> {
    if euros > 400 {
        return Err(format!(
            "the card declined {euros} EUR: over its 400 EUR limit"
        ));
    }
    println!("card       charged {euros} EUR");
    Ok(format!("charged {euros} EUR"))
}

/// Sends an email on the team's behalf.
#[tool(confirm)]
fn send_email(to: String, body: String) -> String {
    println!("email      sent to {to}: {body}");
    format!("sent to {to}")
}

/// Tells the weather in a city; reads only, so it runs without asking.
#[tool(read_only)]
fn weather(city: String) -> String {
    format!("{city}: 21 °C and sunny")
}

/// What people asked the desk before anyone opened the page.
const REQUESTS: &[&str] = &[
    "Book 2 nights in Lisbon and pay with the company card",
    "Email the team: the offsite moves to <b>Friday</b>",
    "Book 1 night in Porto and pay with the company card",
];

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = (BookHotelTool, ChargeCardTool, SendEmailTool, WeatherTool).into_registry()?;
    let model: Box<dyn ChatModel> = model::from_env()?.unwrap_or_else(|| Box::new(ScriptedDesk));
    println!("model      {}", model.description());
    let agent = Arc::new(ToolLoop::new(model, tools));
    let memory = Arc::new(InMemoryChatMemory::new());
    for (number, request) in REQUESTS.iter().enumerate() {
        let conversation = format!("desk-{}", number + 1);
        let outcome = agent
            .run(*request)
            .with_memory(&*memory, &conversation)
            .await;
        match outcome.status {
            LoopStatus::Paused(_) => println!("paused     {request}"),
            other => println!("finished   {request}: {other:?}"),
        }
    }
    let port = std::env::var("APPROVAL_PAGE_PORT")
        .ok()
        .and_then(|port| port.parse().ok())
        .unwrap_or(8088);
    let page = ApprovalPage::new(agent, memory)
        .with_title("Travel desk")
        .bind(port)
        .await
        .map_err(|e| {
            format!("cannot listen on 127.0.0.1:{port} ({e}): set APPROVAL_PAGE_PORT to a free one")
        })?;
    println!("\nOpen {} to decide (Ctrl-C stops).", page.url());
    page.serve(CancellationToken::new()).await?;
    Ok(())
}

/// The stand-in model: it calls the tools a request names, then reports what came back.
struct ScriptedDesk;

impl ChatModel for ScriptedDesk {
    fn description(&self) -> String {
        "scripted desk (a stand-in that follows fixed rules, not a real model)".to_owned()
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let reply = reply_to(request.messages);
        Box::pin(async move { Ok(ChatResponse::new(reply)) })
    }
}

fn reply_to(messages: &[Message]) -> AssistantMessage {
    let results: Vec<_> = messages
        .iter()
        .rev()
        .map_while(|message| match message {
            Message::Tool(result) => Some(result),
            _ => None,
        })
        .collect();
    if !results.is_empty() {
        let lines: Vec<String> = results
            .iter()
            .rev()
            .map(|result| match result.status {
                ToolResultStatus::Denied => {
                    format!("I did not {}: {}", result.name, result.content)
                }
                ToolResultStatus::Error => format!("{} failed: {}", result.name, result.content),
                _ => format!("{}: {}", result.name, result.content),
            })
            .collect();
        return AssistantMessage::text(lines.join("\n"));
    }
    let Some(Message::User { content }) = messages.last() else {
        return AssistantMessage::text("How can the desk help?");
    };
    let asked = content.to_lowercase();
    let call =
        |name: &str, arguments: serde_json::Value| ToolCall::new(name, name, arguments.to_string());
    if asked.starts_with("book") {
        let words: Vec<&str> = content.split_whitespace().collect();
        let nights = words
            .get(1)
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(1);
        let city = words
            .iter()
            .skip_while(|word| **word != "in")
            .nth(1)
            .copied()
            .unwrap_or("Lisbon");
        let euros = 240 * nights;
        return AssistantMessage::with_tool_calls(vec![
            call(
                "book_hotel",
                serde_json::json!({"city": city, "nights": nights}),
            ),
            call("charge_card", serde_json::json!({"euros": euros})),
        ]);
    }
    if asked.starts_with("email") {
        let body = content
            .split_once(':')
            .map_or(content.as_str(), |(_, b)| b.trim());
        return AssistantMessage::with_tool_calls(vec![
            call("weather", serde_json::json!({"city": "Lisbon"})),
            call(
                "send_email",
                serde_json::json!({"to": "team@example.com", "body": body}),
            ),
        ]);
    }
    AssistantMessage::text("The desk books hotels and sends emails.")
}
