//! Cost of dispatching a call through the registry, against the hand-written minimum: decode the
//! arguments with `serde_json::from_str`, call the function, encode the result with
//! `serde_json::to_string`. Both run in the same process, on the same inputs.
//!
//! Run with `cargo bench -p tool-sdk --bench dispatch`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
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

const ADD_ARGS: &str = r#"{"a": 40, "b": 2}"#;
const TRIP_ARGS: &str = r#"{"trip": {"destination": "Lisbon", "nights": 3, "travellers": [{"name": "Ana", "age": 34}, {"name": "Ben", "age": 36}], "budget": null}}"#;

fn dispatch(c: &mut Criterion) {
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).expect("add registers");
    registry
        .register(QuoteTripTool)
        .expect("quote_trip registers");

    #[derive(Deserialize)]
    struct AddArgs {
        a: i64,
        b: i64,
    }
    #[derive(Deserialize)]
    struct TripArgs {
        trip: Trip,
    }

    let mut group = c.benchmark_group("add");
    group.bench_function("hand_written", |b| {
        b.iter(|| {
            let args: AddArgs = serde_json::from_str(black_box(ADD_ARGS)).expect("valid");
            serde_json::to_string(&add(args.a, args.b)).expect("serializable")
        })
    });
    group.bench_function("tool_direct", |b| {
        b.iter(|| {
            run(AddTool.call(black_box(ADD_ARGS), ToolContext::new()))
                .expect("add succeeds")
                .into_content()
        })
    });
    group.bench_function("registry", |b| {
        b.iter(|| {
            run(registry.call(black_box("add"), black_box(ADD_ARGS)))
                .expect("add succeeds")
                .into_content()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("nested_struct");
    group.bench_function("hand_written", |b| {
        b.iter(|| {
            let args: TripArgs = serde_json::from_str(black_box(TRIP_ARGS)).expect("valid");
            serde_json::to_string(&quote(args.trip)).expect("serializable")
        })
    });
    group.bench_function("registry", |b| {
        b.iter(|| {
            run(registry.call(black_box("quote_trip"), black_box(TRIP_ARGS)))
                .expect("quote_trip succeeds")
                .into_content()
        })
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
