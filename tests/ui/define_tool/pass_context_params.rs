#![deny(warnings)]

use tool_sdk::{define::{CallId, State, ToolName}, define_tool, ToolRegistry};

use tool_sdk::run::CancellationToken;

struct Config {
    greeting: String,
}

fn main() {
    // Context parameters before, between and after the arguments; sync.
    let greet = define_tool!(
        /// Greets a person.
        #[tool(name = "greet")]
        |
            #[context] id: CallId,
            name: String,
            #[context] config: State<Config>,
            loud: Option<bool>,
            #[context] tool_name: ToolName,
        | {
            let text = format!("{} {name} ({:?}, {})", config.greeting, id.0, tool_name.0);
            if loud.unwrap_or(false) { text.to_uppercase() } else { text }
        }
    );
    // Context only, async.
    let wait = define_tool!(
        /// Waits until cancelled.
        #[tool(name = "wait")]
        async move |#[context] cancel: CancellationToken| {
            cancel.cancelled().await;
        }
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.insert_state(Config {
        greeting: String::from("hello"),
    });
    let _ = registry.register(greet);
    let _ = registry.register(wait);
}
