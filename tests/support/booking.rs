//! Tools of the loop and rollback tests that log what they do to a shared timeline.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tool_sdk::{define_tool, Tool, ToolRegistry};

/// What the tools did, in order.
pub type Timeline = Arc<Mutex<Vec<String>>>;

/// `book`: logs `started` when it runs; compensable, its compensation logs `cancel KEY` with
/// the idempotency key it was given.
pub fn book(timeline: &Timeline, started: &'static str) -> impl Tool {
    let (log, undo) = (Arc::clone(timeline), Arc::clone(timeline));
    define_tool!(
        /// Books.
        #[tool(name = "book", compensate = move |_args, _booking: String| {
            let key = tool_sdk::compensate::idempotency_key().unwrap_or_default();
            undo.lock().unwrap().push(format!("cancel {key}"));
        })]
        move |reference: String| -> String {
            log.lock().unwrap().push(started.into());
            format!("booked {reference}")
        }
    )
}

/// `transfer`: needs a person's decision (`confirm`); logs `transfer to NAME` when it runs.
pub fn transfer(timeline: &Timeline) -> impl Tool {
    let log = Arc::clone(timeline);
    define_tool!(
        /// Sends money.
        #[tool(name = "transfer", confirm)]
        move |to: String| -> String {
            log.lock().unwrap().push(format!("transfer to {to}"));
            "sent".to_owned()
        }
    )
}

/// `stall`: never answers. A run stopped inside it is a crashed one.
pub fn stall() -> impl Tool {
    define_tool!(
        /// Never answers.
        #[tool(name = "stall")]
        async |reference: String| -> String {
            std::future::pending::<()>().await;
            reference
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

/// `book` (compensable, logs `start book`/`cancel KEY`), `slow` (compensable, takes `delay`), and
/// `fail` (always fails).
pub fn book_slow_and_fail(timeline: &Timeline, delay: Duration) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(book(timeline, "start book")).unwrap();
    let (log, undo) = (Arc::clone(timeline), Arc::clone(timeline));
    registry
        .register(define_tool!(
            /// Books slowly.
            #[tool(name = "slow", compensate = move |_args, _booking: String| {
                undo.lock().unwrap().push("cancel slow".into());
            })]
            async move |reference: String| -> String {
                log.lock().unwrap().push("start slow".into());
                tokio::time::sleep(delay).await;
                format!("booked {reference}")
            }
        ))
        .unwrap();
    registry.register(fail()).unwrap();
    registry
}

/// `book_<what>` tools that succeed (or fail when `fail` is true), each compensable; every
/// booking and cancellation goes to the timeline.
pub fn booking_tools(timeline: &Timeline, failing: &[&str]) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for what in ["flight", "hotel", "car"] {
        let fails = failing.contains(&what);
        let log = Arc::clone(timeline);
        let undo_log = Arc::clone(timeline);
        let name = format!("book_{what}");
        let tool = define_tool!(
            /// Books something.
            #[tool(name = "book", compensate = move |args, booking: String| -> Result<(), String> {
                let reference: String = args.reference;
                undo_log.lock().unwrap().push(format!("cancel {booking} ({reference})"));
                Ok(())
            })]
            move |reference: String| -> Result<String, String> {
                if fails {
                    log.lock().unwrap().push(format!("fail {reference}"));
                    return Err(format!("no availability for {reference}"));
                }
                log.lock().unwrap().push(format!("book {reference}"));
                Ok(format!("B-{reference}"))
            }
        );
        registry.register(Renamed::new(tool, &name)).unwrap();
    }
    registry
}

/// A tool under another name (the same inline tool serves three names in these tests).
#[derive(Debug)]
pub struct Renamed<T> {
    inner: T,
    definition: tool_sdk::define::ToolDefinition,
}

impl<T: Tool> Renamed<T> {
    /// `inner` named `name`.
    pub fn new(inner: T, name: &str) -> Self {
        let mut definition = inner.definition().clone();
        definition.name = name.to_owned();
        Self { inner, definition }
    }
}

impl<T: Tool> Tool for Renamed<T> {
    fn definition(&self) -> &tool_sdk::define::ToolDefinition {
        &self.definition
    }
    fn call<'a>(
        &'a self,
        arguments: &'a str,
        context: tool_sdk::ToolContext<'a>,
    ) -> tool_sdk::define::ToolFuture<'a> {
        self.inner.call(arguments, context)
    }
    fn check_arguments(&self, arguments: &str) -> Result<(), tool_sdk::ToolError> {
        self.inner.check_arguments(arguments)
    }
    fn compensate<'a>(
        &'a self,
        arguments: &'a str,
        output: &'a tool_sdk::ToolOutput,
        context: tool_sdk::ToolContext<'a>,
    ) -> Option<tool_sdk::define::ToolFuture<'a>> {
        self.inner.compensate(arguments, output, context)
    }
}
