//! A saga: book a flight, a hotel and a car; the car fails, so the hotel and the flight are
//! cancelled, newest first, each once. The model is a scripted stand-in; the timeline shows
//! what happened and what the model is told.
//!
//! ```text
//! cargo run --example travel_saga
//! ```

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tool_sdk::run::{event_fn, LoopEvent, LoopStatus, ToolLoop};
use tool_sdk::{tools, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};

/// A booking's confirmation number, handed back to the compensating action.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Confirmation(String);

/// A travel agency whose bookings can be cancelled.
#[derive(Default)]
struct Agency {
    bookings: Mutex<Vec<String>>,
}

#[tools]
impl Agency {
    /// Books a flight and returns its confirmation number.
    #[tool(compensate = cancel_flight)]
    async fn book_flight(&self, from: String, to: String) -> Result<Confirmation, String> {
        Ok(self.book(format!("FL-{from}-{to}")))
    }

    /// Books a hotel room and returns its confirmation number.
    #[tool(compensate = cancel_hotel)]
    async fn book_hotel(&self, city: String, nights: u8) -> Result<Confirmation, String> {
        Ok(self.book(format!("HT-{city}-{nights}")))
    }

    /// Rents a car and returns its confirmation number.
    #[tool(compensate = cancel_car)]
    async fn rent_car(&self, city: String) -> Result<Confirmation, String> {
        Err(format!("no cars left in {city}"))
    }

    fn book(&self, number: String) -> Confirmation {
        if let Ok(mut bookings) = self.bookings.lock() {
            bookings.push(number.clone());
        }
        Confirmation(number)
    }

    fn cancel(&self, confirmation: &Confirmation) -> Result<(), String> {
        let mut bookings = self.bookings.lock().map_err(|_| "bookings unavailable")?;
        bookings.retain(|b| *b != confirmation.0);
        Ok(())
    }

    // Each compensating action gets the tool's arguments as one value (the struct `#[tools]`
    // generates for the tool, named after it: `BookFlightArgs` for `book_flight`) and the
    // tool's output, decoded into its second parameter's type. Only what it needs is named.

    async fn cancel_flight(&self, _: BookFlightArgs, booked: Confirmation) -> Result<(), String> {
        self.cancel(&booked)
    }

    async fn cancel_hotel(
        &self,
        BookHotelArgs { city, nights }: BookHotelArgs,
        booked: Confirmation,
    ) -> Result<(), String> {
        println!("           cancelling {nights} nights in {city}");
        self.cancel(&booked)
    }

    async fn cancel_car(&self, _: RentCarArgs, booked: Confirmation) -> Result<(), String> {
        self.cancel(&booked)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let agency = Arc::new(Agency::default());
    let mut registry = ToolRegistry::new();
    registry.register_set(Arc::clone(&agency))?;

    // [scripted model] The replies a model might give for "Plan my trip to Oslo".
    let model = ScriptedModel::new([
        AssistantMessage::with_tool_calls(vec![ToolCall::new(
            "call_1",
            "book_flight",
            r#"{"from": "LIS", "to": "OSL"}"#,
        )]),
        AssistantMessage::with_tool_calls(vec![
            ToolCall::new("call_2", "book_hotel", r#"{"city": "Oslo", "nights": 3}"#),
            ToolCall::new("call_3", "rent_car", r#"{"city": "Oslo"}"#),
        ]),
    ]);

    let start = Instant::now();
    let agent = ToolLoop::new(model, registry).with_observer(event_fn(move |event| {
        let at = start.elapsed().as_micros();
        match event {
            LoopEvent::ModelCalled { round } => println!("{at:>7} µs  model call, round {round}"),
            LoopEvent::ToolStarted { name, .. } => println!("{at:>7} µs  start    {name}"),
            LoopEvent::ToolFinished { name, status, .. } => {
                println!("{at:>7} µs  finish   {name}: {status:?}")
            }
            LoopEvent::Compensated { name, error, .. } => {
                println!(
                    "{at:>7} µs  rollback {name}: {}",
                    error.as_deref().unwrap_or("done")
                )
            }
            _ => {}
        }
    }));

    let mut conversation = vec![Message::user("Plan my trip to Oslo: flight, hotel, car.")];
    let outcome = agent.run(&mut conversation).await;

    match &outcome.status {
        LoopStatus::RolledBack { name, error, .. } => {
            println!("\nthe run failed at {name}: {error}")
        }
        other => println!("\nthe run ended: {other:?}"),
    }
    println!(
        "bookings still held: {:?}",
        agency
            .bookings
            .lock()
            .map(|b| b.clone())
            .unwrap_or_default()
    );
    println!("\nwhat the model is told:");
    for message in &conversation {
        if let Message::Tool(result) = message {
            println!(
                "  {} [{:?}]: {}",
                result.name, result.status, result.content
            );
        }
    }
    Ok(())
}
