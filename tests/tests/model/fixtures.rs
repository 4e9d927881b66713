//! What the providers' tests share: the travel tools their servers' scenarios call, a model
//! that counts whole and streamed requests, and readers of a run's outcome.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tool_sdk::model::{ChatRequest, ChatStream, ModelFuture, ToolResultStatus};
use tool_sdk::run::LoopStatus;
use tool_sdk::{define_tool, tool, ChatModel, Message, ToolRegistry};

/// What the tools did, in order.
pub(crate) type Journal = Arc<Mutex<Vec<String>>>;

/// Gets the current weather for a city.
#[tool]
pub(crate) fn get_weather(
    /// The city, such as "Lisbon".
    city: String,
) -> String {
    format!("{city}: sunny, 21 °C")
}

/// Forecasts the weather.
#[tool]
pub(crate) fn forecast(
    /// The city.
    city: String,
    /// How many days ahead (default 1).
    days: Option<u8>,
) -> String {
    let days = days.unwrap_or(1);
    format!(
        "{city}: sunny for {days} day{}",
        if days == 1 { "" } else { "s" }
    )
}

/// The weather and the compensable bookings: no tool of them waits for a person, so the loop
/// streams.
pub(crate) fn bookings(journal: &Journal) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(GetWeatherTool).unwrap();

    let (log, undo) = (Arc::clone(journal), Arc::clone(journal));
    registry
        .register(define_tool!(
            /// Books a flight and returns its reference.
            #[tool(name = "book_flight", compensate = move |args, booking: String| -> Result<(), String> {
                let to: String = args.to;
                undo.lock().unwrap().push(format!("cancel flight to {to} ({booking})"));
                Ok(())
            })]
            move |
                /// Where to fly to.
                to: String,
            | -> Result<String, String> {
                log.lock().unwrap().push(format!("flight to {to}"));
                Ok(format!("flight booked: FL-{to}"))
            }
        ))
        .unwrap();

    let (log, undo) = (Arc::clone(journal), Arc::clone(journal));
    registry
        .register(define_tool!(
            /// Books a hotel and returns its reference.
            #[tool(name = "book_hotel", compensate = move |args, booking: String| -> Result<(), String> {
                let (city, nights): (String, u32) = (args.city, args.nights);
                undo.lock().unwrap().push(format!("cancel hotel in {city} for {nights} ({booking})"));
                Ok(())
            })]
            move |
                /// The city.
                city: String,
                /// How many nights.
                nights: u32,
            | -> Result<String, String> {
                if city == "Atlantis" {
                    log.lock().unwrap().push(format!("no hotel in {city}"));
                    return Err(format!("no hotel in {city}"));
                }
                log.lock().unwrap().push(format!("hotel in {city} for {nights}"));
                Ok(format!("hotel booked: HT-{city}-{nights}"))
            }
        ))
        .unwrap();
    registry
}

/// The bookings and a payment that no tool of its own gates (a gate's policy may).
pub(crate) fn travel_tools(journal: &Journal) -> ToolRegistry {
    let mut registry = bookings(journal);
    let log = Arc::clone(journal);
    registry
        .register(define_tool!(
            /// Pays an amount in euros.
            #[tool(name = "pay")]
            move |
                /// Euros.
                amount: u32,
            | -> String {
                log.lock().unwrap().push(format!("paid {amount}"));
                format!("paid {amount}")
            }
        ))
        .unwrap();
    registry
}

/// A model that counts how its requests went: whole or streamed.
pub(crate) struct Counted<M> {
    inner: M,
    whole: AtomicUsize,
    streamed: AtomicUsize,
}

impl<M: ChatModel> Counted<M> {
    pub(crate) fn new(inner: M) -> Arc<Self> {
        Arc::new(Self {
            inner,
            whole: AtomicUsize::new(0),
            streamed: AtomicUsize::new(0),
        })
    }

    /// How many requests went whole, and how many streamed.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (
            self.whole.load(Ordering::Relaxed),
            self.streamed.load(Ordering::Relaxed),
        )
    }
}

/// A [`Counted`] model the loop holds while the test keeps it too.
pub(crate) struct Shared<M>(pub(crate) Arc<Counted<M>>);

impl<M: ChatModel> ChatModel for Shared<M> {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        self.0.whole.fetch_add(1, Ordering::Relaxed);
        self.0.inner.chat(request)
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        self.0.streamed.fetch_add(1, Ordering::Relaxed);
        self.0.inner.chat_stream(request)
    }
}

/// The answer's text; a run that did not answer fails the test.
pub(crate) fn answer_text(status: &LoopStatus) -> &str {
    match status {
        LoopStatus::Answered(reply) => reply.text.as_deref().unwrap_or_default(),
        other => panic!("the run did not answer: {other:?}"),
    }
}

/// Each tool result of the conversation: its tool, status and content.
pub(crate) fn results(conversation: &[Message]) -> Vec<(&str, ToolResultStatus, &str)> {
    conversation
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) => {
                Some((result.name.as_str(), result.status, result.content.as_str()))
            }
            _ => None,
        })
        .collect()
}

/// A conversation of one user message.
pub(crate) fn user(text: &str) -> Vec<Message> {
    vec![Message::user(text)]
}
