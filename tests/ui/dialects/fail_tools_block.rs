use std::collections::HashMap;

use tool_sdk::tools;

struct Inventory;

#[tools(dialects(gemini))]
impl Inventory {
    /// Lists items.
    #[tool]
    fn list(&self, prefix: String) -> String {
        prefix
    }

    /// Counts items by name.
    #[tool]
    fn count(&self, items: HashMap<String, u32>) -> u32 {
        items.values().sum()
    }
}

fn main() {}
