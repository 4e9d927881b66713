//! Checks that no arguments text can make `ToolRegistry::call` panic: whatever the model writes
//! (valid UTF-8 of any shape, depth or size) ends as the tool's output or a classified
//! `ToolError`. Input: one byte choosing the tool (or an unknown name), then the arguments text.
#![no_main]

use std::future::Future;
use std::pin::pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::{register::DynamicTool, tool, ToolError, ToolRegistry};

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Class {
    Economy,
    Business,
    Seat { row: u8, letter: char },
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Traveller {
    name: String,
    age: Option<u16>,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Trip {
    traveller: Traveller,
    legs: Vec<String>,
    class: Class,
    nights: Option<u32>,
}

/// Books a trip.
#[tool]
fn book(
    /// The trip.
    trip: Trip,
    /// Extra notes.
    notes: Option<Vec<String>>,
) -> Result<Trip, String> {
    if trip.legs.is_empty() {
        return Err("a trip needs at least one leg".into());
    }
    let _ = notes;
    Ok(trip)
}

/// Adds numbers, never overflowing.
#[tool]
fn add(values: &[i64], #[arg(default = 0)] start: i64) -> i64 {
    values.iter().fold(start, |sum, v| sum.wrapping_add(*v))
}

/// Does nothing.
#[tool]
fn ping() {}

const NAMES: [&str; 5] = ["book", "add", "ping", "lookup", "bok"];

fn registry() -> &'static ToolRegistry {
    static REGISTRY: OnceLock<ToolRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": { "type": "string", "minLength": 1, "maxLength": 64 },
                "limit": { "type": "integer", "minimum": 1, "maximum": 50 },
                "filters": {
                    "type": "array",
                    "items": { "type": "object", "properties": { "field": { "enum": ["a", "b"] } } }
                }
            },
            "required": ["query"],
            "additionalProperties": false
        });
        let lookup = DynamicTool::new("lookup", "Looks things up.", schema, |args: Value| async move {
            format!("{} results", args["limit"].as_u64().unwrap_or(10))
        })
        .expect("the dynamic tool's schema is valid");
        let mut registry = ToolRegistry::new();
        registry.register(BookTool).unwrap();
        registry.register(AddTool).unwrap();
        registry.register(PingTool).unwrap();
        registry.register(lookup).unwrap();
        registry
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(arguments) = std::str::from_utf8(rest) else {
        return;
    };
    let name = NAMES[usize::from(selector) % NAMES.len()];

    // Every tool is synchronous: the call must finish on the first poll.
    let mut future = pin!(registry().call(name, arguments));
    let mut cx = Context::from_waker(Waker::noop());
    let Poll::Ready(result) = future.as_mut().poll(&mut cx) else {
        panic!("a synchronous tool call did not finish at once");
    };

    match result {
        Ok(output) => {
            let _ = output.content();
        }
        Err(error) => {
            // Classified: nothing here panics or times out, and only `book` fails on its own.
            assert!(
                !matches!(
                    error,
                    ToolError::Panicked { .. } | ToolError::TimedOut { .. }
                ),
                "{error:?}"
            );
            if matches!(error, ToolError::ExecutionFailed { .. }) {
                assert_eq!(name, "book", "{error}");
            }
            if matches!(error, ToolError::UnknownTool { .. }) {
                assert_eq!(name, "bok", "{error}");
            }
            let _ = (
                error.to_string(),
                error.model_message(),
                error.is_recoverable(),
            );
        }
    }
});
