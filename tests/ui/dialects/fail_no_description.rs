use tool_sdk::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Order {
    id: u32,
}

/// Places an order.
#[tool(dialects(openai_strict))]
fn place(order: Order) -> u32 {
    order.id
}

fn main() {}
