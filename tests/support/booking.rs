//! Tools of the loop and rollback tests that log what they do to a shared timeline.

use std::sync::{Arc, Mutex};

use tool_sdk::{define_tool, Tool};

/// What the tools did, in order.
pub type Timeline = Arc<Mutex<Vec<String>>>;

/// `book`: logs `started` when it runs; compensable, its compensation logs `cancel KEY` with
/// the idempotency key it was given.
pub fn book(timeline: &Timeline, started: &'static str) -> impl Tool {
    let (log, undo) = (Arc::clone(timeline), Arc::clone(timeline));
    define_tool!(
        /// Books.
        #[tool(name = "book", compensate = move |_reference: String, _booking: String| {
            let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
            undo.lock().unwrap().push(format!("cancel {key}"));
        })]
        move |reference: String| -> String {
            log.lock().unwrap().push(started.into());
            format!("booked {reference}")
        }
    )
}

/// `fail`: always fails.
pub fn fail() -> impl Tool {
    define_tool!(
        /// Fails.
        #[tool(name = "fail")]
        |reference: String| -> Result<String, String> { Err(format!("no {reference}")) }
    )
}
