#![deny(warnings)]

use tool_sdk::{define_tool, ToolRegistry};

/// Each argument by reference; a `&str` parameter is lent as `&String`.
fn costly(amount: &f64, _to: &String) -> bool {
    *amount > 100.0
}

fn main() {
    let limit = 100.0;
    // A closure capturing its environment, typed parameters.
    let pay = define_tool!(
        /// Pays an amount.
        #[tool(name = "pay", confirm = move |amount: &f64, _to: &String| *amount > limit)]
        |amount: f64, to: String| format!("paid {amount} to {to}")
    );
    // A closure whose parameter types come from the tool.
    let refund = define_tool!(
        /// Refunds an amount.
        #[tool(name = "refund", confirm = |amount, to| *amount > 10.0 && !to.is_empty())]
        |amount: f64, to: String| format!("refunded {amount} to {to}")
    );
    // A path to a fn; a borrowed parameter, a context parameter (not passed to the predicate).
    let send = define_tool!(
        /// Sends an amount.
        #[tool(name = "send", confirm = costly)]
        |amount: f64, to: &str, #[context] id: tool_sdk::define::CallId| format!("sent {amount} to {to} ({:?})", id.0)
    );
    // No arguments: the predicate takes none.
    let wipe = define_tool!(
        /// Wipes everything.
        #[tool(name = "wipe", confirm = || true)]
        || {}
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(pay);
    let _ = registry.register(refund);
    let _ = registry.register(send);
    let _ = registry.register(wipe);
}
