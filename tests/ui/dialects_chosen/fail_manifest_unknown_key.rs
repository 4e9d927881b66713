//! A key the table does not have is an error, not a setting ignored.

use tool_sdk::tool;

/// Does its work.
#[tool]
fn work(count: u32) -> u32 {
    count
}

fn main() {
    let _ = work(1);
}
