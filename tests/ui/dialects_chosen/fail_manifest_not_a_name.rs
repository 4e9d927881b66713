//! Dialects are named in strings.

use tool_sdk::tool;

/// Does its work.
#[tool]
fn work(count: u32) -> u32 {
    count
}

fn main() {
    let _ = work(1);
}
