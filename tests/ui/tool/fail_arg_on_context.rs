use tool_sdk::{define::CallId, tool};

/// Echoes the call id.
#[tool]
fn call_id(
    #[context]
    #[arg(rename = "id")]
    id: CallId,
) -> String {
    id.0.unwrap_or_default()
}

fn main() {}
