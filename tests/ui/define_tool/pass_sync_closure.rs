#![deny(warnings)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use tool_sdk::{define_tool, ToolRegistry};

fn main() {
    let calls = Arc::new(AtomicU32::new(0));
    // No parameters, no return type: the unit output.
    let ping = define_tool!(
        /// Answers a ping.
        #[tool(name = "ping")]
        || {}
    );
    // A `move` closure changing captured state, with a declared return type.
    let count = define_tool!(
        /// Counts its calls.
        #[tool(name = "count")]
        move |by: u32| -> u32 { calls.fetch_add(by, Ordering::SeqCst) + by }
    );
    // A plain expression body, and a `Result` whose error is `Display`.
    let half = define_tool!(
        /// Halves an even number.
        #[tool(name = "half")]
        |n: i64| if n % 2 == 0 { Ok(n / 2) } else { Err(format!("{n} is odd")) }
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(ping);
    let _ = registry.register(count);
    let _ = registry.register(half);
}
