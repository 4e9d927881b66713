use tool_sdk::{tool, CallId};

/// Echoes the call id.
#[tool]
fn call_id(#[context] id: &CallId) -> String {
    id.0.clone().unwrap_or_default()
}

fn main() {}
