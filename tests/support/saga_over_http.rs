//! One gated, compensating scenario every chat model must pass against its test server: the
//! same tools, the same rules (`scenario:saga` in `tests/fakellm/openai.yaml` and
//! `tests/gemini/gemini.yaml`), the same checks.
//!
//! Round 1: the model books a flight (compensable). Round 2: it pays (a person must allow it)
//! and books a hotel in the same reply; the run pauses, nothing of the reply has run. Allowed,
//! the payment runs and the hotel fails, so the flight is cancelled: two rounds, a decision, a
//! compensation after a failure, with streaming on.

use std::sync::{Arc, Mutex};

use tool_sdk::define::ToolError;
use tool_sdk::model::{check_conversation, ToolResultStatus};
use tool_sdk::run::{LoopOptions, LoopStatus};
use tool_sdk::{define_tool, ChatModel, Message, ToolLoop, ToolRegistry};

/// What the tools did, in order.
type Journal = Arc<Mutex<Vec<String>>>;

fn tools(journal: &Journal) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let (log, undo) = (Arc::clone(journal), Arc::clone(journal));
    registry
        .register(define_tool!(
            /// Books a flight and returns its reference.
            #[tool(name = "book_flight", compensate = move |args, booking: String| {
                let to: String = args.to;
                undo.lock().unwrap().push(format!("cancel flight to {to} ({booking})"));
            })]
            move |
                /// Where to fly to.
                to: String,
            | -> String {
                log.lock().unwrap().push(format!("flight to {to}"));
                format!("flight booked: FL-{to}")
            }
        ))
        .unwrap();
    let log = Arc::clone(journal);
    registry
        .register(define_tool!(
            /// Books a hotel.
            #[tool(name = "book_hotel")]
            move |
                /// The city.
                city: String,
                /// How many nights.
                nights: u32,
            | -> Result<String, String> {
                log.lock().unwrap().push(format!("no hotel in {city} for {nights}"));
                Err(format!("no hotel in {city}"))
            }
        ))
        .unwrap();
    let log = Arc::clone(journal);
    registry
        .register(define_tool!(
            /// Pays an amount in euros.
            #[tool(name = "pay", confirm)]
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

/// Runs the scenario with `model` (in a conversation of its own on its server) and checks
/// every step; panics, saying what differed, on the first that does not hold.
pub async fn run_gated_saga(model: impl ChatModel + 'static) {
    let journal = Journal::default();
    let agent =
        ToolLoop::new(model, tools(&journal)).with_options(LoopOptions::new().with_streaming(true));
    let mut chat = vec![Message::user(
        "scenario:saga Fly me to Lisbon, pay, and find a hotel.",
    )];

    let outcome = agent.run(&mut chat).await;
    let LoopStatus::Paused(paused) = &outcome.status else {
        panic!("the payment waits for a decision: {:?}", outcome.status);
    };
    assert_eq!(outcome.rounds, 2);
    assert_eq!(paused.awaiting().len(), 1, "{:?}", paused.awaiting());
    assert_eq!(
        *journal.lock().unwrap(),
        ["flight to Lisbon"],
        "nothing of the paused reply ran"
    );
    check_conversation(&chat).unwrap();

    let decisions = paused.decide().allow_rest().build();
    let outcome = agent
        .resume(&mut chat, paused.id(), &decisions)
        .await
        .unwrap();
    let LoopStatus::RolledBack { name, error, .. } = &outcome.status else {
        panic!(
            "the hotel fails and the run rolls back: {:?}",
            outcome.status
        );
    };
    assert_eq!(name, "book_hotel");
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert_eq!(
        *journal.lock().unwrap(),
        [
            "flight to Lisbon",
            "paid 420",
            "no hotel in Lisbon for 2",
            "cancel flight to Lisbon (flight booked: FL-Lisbon)",
        ]
    );
    assert_eq!(outcome.compensations.len(), 1);
    assert!(outcome.compensations[0].result.is_ok());
    check_conversation(&chat).unwrap();
    let results: Vec<(&str, ToolResultStatus)> = chat
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) => Some((result.name.as_str(), result.status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("book_flight", ToolResultStatus::RolledBack),
            ("pay", ToolResultStatus::Success),
            ("book_hotel", ToolResultStatus::Error),
        ]
    );
}
