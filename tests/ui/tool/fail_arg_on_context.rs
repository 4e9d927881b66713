use tool_sdk::{tool, CallId};

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
