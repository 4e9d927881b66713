//! Cost of dispatching a call through the registry, against the hand-written minimum: decode the
//! arguments with `serde_json::from_str`, call the function, encode the result with
//! `serde_json::to_string`. Both run in the same process, on the same inputs.
//!
//! Run with `cargo bench -p tool-sdk --bench dispatch`.

use criterion::{criterion_group, criterion_main, Criterion};
use tool_sdk::ToolRegistry;

#[path = "support/calls.rs"]
mod calls;
#[path = "support/poll.rs"]
mod poll;
use calls::{
    add_by_hand, add_direct, quote_trip_by_hand, through, AddTool, QuoteTripTool, ADD_ARGS,
    TRIP_ARGS,
};

fn dispatch(c: &mut Criterion) {
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).expect("add registers");
    registry
        .register(QuoteTripTool)
        .expect("quote_trip registers");

    let mut group = c.benchmark_group("add");
    group.bench_function("hand_written", |b| b.iter(add_by_hand));
    group.bench_function("tool_direct", |b| b.iter(add_direct));
    group.bench_function("registry", |b| {
        b.iter(|| through(&registry, "add", ADD_ARGS))
    });
    group.finish();

    let mut group = c.benchmark_group("nested_struct");
    group.bench_function("hand_written", |b| b.iter(quote_trip_by_hand));
    group.bench_function("registry", |b| {
        b.iter(|| through(&registry, "quote_trip", TRIP_ARGS))
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
