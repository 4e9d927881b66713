//! The calls both dispatch benchmarks make, each written twice: as a tool called through the
//! SDK, and by hand (`serde_json::from_str`, the function, `serde_json::to_string`), the
//! minimum any dispatch costs.

use std::hint::black_box;

use serde::{Deserialize, Serialize};
use tool_sdk::{tool, Tool, ToolContext, ToolRegistry};

use super::poll::run;

/// Adds two numbers.
#[tool]
pub(crate) fn add(a: i64, b: i64) -> i64 {
    a + b
}

pub(crate) const ADD_ARGS: &str = r#"{"a": 40, "b": 2}"#;

#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
pub(crate) struct Traveller {
    name: String,
    age: u8,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, tool_sdk::describe::Described)]
pub(crate) struct Trip {
    destination: String,
    nights: u16,
    travellers: Vec<Traveller>,
    budget: Option<f64>,
}

#[derive(Serialize)]
pub(crate) struct Quote {
    destination: String,
    people: usize,
    total: f64,
}

/// Prices a trip.
#[tool]
pub(crate) fn quote_trip(trip: Trip) -> Quote {
    quote(trip)
}

fn quote(trip: Trip) -> Quote {
    Quote {
        people: trip.travellers.len(),
        total: f64::from(trip.nights) * 80.0 * trip.travellers.len() as f64,
        destination: trip.destination,
    }
}

pub(crate) const TRIP_ARGS: &str = r#"{"trip": {"destination": "Lisbon", "nights": 3, "travellers": [{"name": "Ana", "age": 34}, {"name": "Ben", "age": 36}], "budget": null}}"#;

/// `add` by hand.
#[inline(never)]
pub(crate) fn add_by_hand() -> String {
    #[derive(Deserialize)]
    struct AddArgs {
        a: i64,
        b: i64,
    }
    let args: AddArgs = serde_json::from_str(black_box(ADD_ARGS)).expect("valid arguments");
    serde_json::to_string(&add(args.a, args.b)).expect("serializable")
}

/// `add` through its generated `Tool::call`, without a registry.
#[inline(never)]
pub(crate) fn add_direct() -> String {
    run(AddTool.call(black_box(ADD_ARGS), ToolContext::new()))
        .expect("add succeeds")
        .into_content()
}

/// `quote_trip` by hand.
#[inline(never)]
pub(crate) fn quote_trip_by_hand() -> String {
    #[derive(Deserialize)]
    struct TripArgs {
        trip: Trip,
    }
    let args: TripArgs = serde_json::from_str(black_box(TRIP_ARGS)).expect("valid arguments");
    serde_json::to_string(&quote(args.trip)).expect("serializable")
}

/// A call of `name` with `arguments` through `registry`.
#[inline(never)]
pub(crate) fn through(registry: &ToolRegistry, name: &str, arguments: &str) -> String {
    run(registry.call(black_box(name), black_box(arguments)))
        .expect("the call succeeds")
        .into_content()
}
