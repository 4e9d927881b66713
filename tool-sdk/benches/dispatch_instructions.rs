//! The instructions one dispatch of `add(a, b)` executes, for counting under valgrind, where
//! the figure does not move with the load of the machine the way time does.
//!
//! Each mode runs the same call `N` times (default 1,000): `none` (the loop alone), `hand`
//! (`serde_json::from_str` + the call + `serde_json::to_string`), `direct` (the generated
//! `Tool::call`), `registry` (`ToolRegistry::call` by name); `nested_hand` and
//! `nested_registry` do the same for a tool taking a nested struct (`quote_trip`). Both
//! benchmarks make the calls of `support/calls.rs`. The cost of one call is the difference
//! between a mode's count and `none`'s, divided by `N`:
//!
//! ```text
//! cargo bench -p tool-sdk --bench dispatch_instructions --no-run
//! for mode in none hand direct registry nested_hand nested_registry; do
//!   DISPATCH_MODE=$mode DISPATCH_CALLS=100000 valgrind --tool=cachegrind --cache-sim=no \
//!     target/release/deps/dispatch_instructions-* 2>&1 | grep 'I *refs'
//! done
//! ```

use std::hint::black_box;

use tool_sdk::ToolRegistry;

#[path = "support/calls.rs"]
mod calls;
#[path = "support/poll.rs"]
mod poll;
use calls::{
    add_by_hand, add_direct, quote_trip_by_hand, through, AddTool, QuoteTripTool, ADD_ARGS,
    TRIP_ARGS,
};

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
        "hand" => Box::new(add_by_hand),
        "direct" => Box::new(add_direct),
        "registry" => Box::new(|| through(&tools, "add", ADD_ARGS)),
        "nested_hand" => Box::new(quote_trip_by_hand),
        "nested_registry" => Box::new(|| through(&trips, "quote_trip", TRIP_ARGS)),
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
