use tool_sdk::{define::CallId, tool};

/// Echoes the call id.
#[tool]
fn call_id(#[context] id: &CallId) -> String {
    id.0.clone().unwrap_or_default()
}

fn main() {}
