#![deny(warnings)]

use tool_sdk::{define::{CallId, State, ToolName}, tool};

struct Config {
    greeting: String,
}

/// Greets a person.
#[tool]
async fn greet(
    name: String,
    #[context] id: CallId,
    #[context] tool_name: ToolName,
    #[context] cancel: tool_sdk::run::CancellationToken,
    #[context] config: State<Config>,
) -> String {
    format!(
        "{} {name} ({:?}, {}, {})",
        config.greeting,
        id.0,
        tool_name.0,
        cancel.is_cancelled()
    )
}

/// Reports its own name.
#[tool]
fn whoami(#[context] tool_name: ToolName) -> String {
    tool_name.0
}

fn main() {}
