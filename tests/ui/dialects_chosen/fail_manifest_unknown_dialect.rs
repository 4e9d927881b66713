//! A dialect the manifest names that is not one: every macro of the package says so, at itself,
//! and the functions stay as written.

use tool_sdk::{define_tool, tool, tools};

/// Does its work.
#[tool]
fn work(count: u32) -> u32 {
    count
}

struct Counter;

#[tools]
impl Counter {
    /// Counts.
    #[tool]
    fn count(&self, step: u32) -> u32 {
        step
    }
}

fn main() {
    let _ = work(1);
    let _ = Counter.count(1);
    let _inline = define_tool!(
        /// Echoes.
        #[tool(name = "echo")]
        |text: String| text
    );
}
