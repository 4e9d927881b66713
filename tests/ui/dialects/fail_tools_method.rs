use std::collections::HashMap;

use tool_sdk::tools;

struct Inventory;

#[tools]
impl Inventory {
    /// Counts items by name.
    #[tool(dialects(anthropic_strict))]
    fn count(&self, items: HashMap<String, u32>) -> u32 {
        items.values().sum()
    }
}

fn main() {}
