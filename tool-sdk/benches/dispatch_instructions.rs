//! The instructions one dispatch of `add(a, b)` executes, for counting under valgrind, where
//! the figure does not move with the load of the machine the way time does.
//!
//! Each mode runs the same call `N` times (default 1,000): `none` (the loop alone), `hand`
//! (`serde_json::from_str` + the call + `serde_json::to_string`), `direct` (the generated
//! `Tool::call`), `registry` (`ToolRegistry::call` by name); `nested_hand` and
//! `nested_registry` do the same for a tool taking a nested struct (`quote_trip` of the
//! `dispatch` benchmark). The cost of one call is the difference between a mode's count and
//! `none`'s, divided by `N`:
//!
//! ```text
//! cargo bench -p tool-sdk --bench dispatch_instructions --no-run
//! for mode in none hand direct registry nested_hand nested_registry; do
//!   DISPATCH_MODE=$mode DISPATCH_CALLS=100000 valgrind --tool=cachegrind --cache-sim=no \
//!     target/release/deps/dispatch_instructions-* 2>&1 | grep 'I *refs'
//! done
//! ```

use std::hint::black_box;

use serde::{Deserialize, Serialize};
use tool_sdk::{tool, Tool, ToolContext, ToolRegistry};

#[path = "support/poll.rs"]
mod poll;
use poll::run;

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

const ARGS: &str = r#"{"a": 40, "b": 2}"#;

#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Traveller {
    name: String,
    age: u8,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Trip {
    destination: String,
    nights: u16,
    travellers: Vec<Traveller>,
    budget: Option<f64>,
}

#[derive(Serialize)]
struct Quote {
    destination: String,
    people: usize,
    total: f64,
}

/// Prices a trip.
#[tool]
fn quote_trip(trip: Trip) -> Quote {
    quote(trip)
}

fn quote(trip: Trip) -> Quote {
    Quote {
        people: trip.travellers.len(),
        total: f64::from(trip.nights) * 80.0 * trip.travellers.len() as f64,
        destination: trip.destination,
    }
}

const TRIP_ARGS: &str = r#"{"trip": {"destination": "Lisbon", "nights": 3, "travellers": [{"name": "Ana", "age": 34}, {"name": "Ben", "age": 36}], "budget": null}}"#;

#[inline(never)]
fn hand() -> String {
    #[derive(Deserialize)]
    struct AddArgs {
        a: i64,
        b: i64,
    }
    let args: AddArgs = serde_json::from_str(black_box(ARGS)).expect("valid arguments");
    serde_json::to_string(&add(args.a, args.b)).expect("serializable")
}

#[inline(never)]
fn direct() -> String {
    run(AddTool.call(black_box(ARGS), ToolContext::new()))
        .expect("add succeeds")
        .into_content()
}

#[inline(never)]
fn registry(registry: &ToolRegistry) -> String {
    run(registry.call(black_box("add"), black_box(ARGS)))
        .expect("add succeeds")
        .into_content()
}

#[inline(never)]
fn nested_hand() -> String {
    #[derive(Deserialize)]
    struct TripArgs {
        trip: Trip,
    }
    let args: TripArgs = serde_json::from_str(black_box(TRIP_ARGS)).expect("valid arguments");
    serde_json::to_string(&quote(args.trip)).expect("serializable")
}

#[inline(never)]
fn nested_registry(registry: &ToolRegistry) -> String {
    run(registry.call(black_box("quote_trip"), black_box(TRIP_ARGS)))
        .expect("quote_trip succeeds")
        .into_content()
}

fn main() {
    let mode = std::env::var("DISPATCH_MODE").unwrap_or_else(|_| "registry".to_owned());
    let calls: usize = std::env::var("DISPATCH_CALLS")
        .ok()
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(1_000);
    let mut tools = ToolRegistry::new();
    tools.register(AddTool).expect("add registers");
    // A registry of its own, so that the `add` modes count what they always did.
    let mut trips = ToolRegistry::new();
    trips.register(QuoteTripTool).expect("quote_trip registers");
    let call: Box<dyn Fn() -> String> = match mode.as_str() {
        "none" => Box::new(String::new),
        "hand" => Box::new(hand),
        "direct" => Box::new(direct),
        "registry" => Box::new(|| registry(&tools)),
        "nested_hand" => Box::new(nested_hand),
        "nested_registry" => Box::new(|| nested_registry(&trips)),
        other => {
            eprintln!(
                "DISPATCH_MODE is none, hand, direct, registry, nested_hand or \
                 nested_registry, not {other:?}"
            );
            std::process::exit(2);
        }
    };
    for _ in 0..calls {
        black_box(call());
    }
}
