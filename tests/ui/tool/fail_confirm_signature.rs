use tool_sdk::tool;

/// Pays an amount.
#[tool(confirm = costly)]
fn pay(amount: f64, to: String) -> String {
    format!("paid {amount} to {to}")
}

/// Takes the amount by value: a predicate borrows each argument.
fn costly(amount: f64, _to: &String) -> bool {
    amount > 100.0
}

fn main() {}
