#![deny(warnings)]

use std::sync::Arc;

use tool_sdk::{define_tool, ToolRegistry};

struct Greeter {
    greeting: String,
}

fn main() {
    let greeter = Arc::new(Greeter {
        greeting: String::from("hello"),
    });
    // A closure returning an `async move` block that uses the captured state.
    let greet = define_tool!(
        /// Greets someone.
        #[tool(name = "greet")]
        move |name: String| {
            let greeter = Arc::clone(&greeter);
            async move { format!("{} {name}", greeter.greeting) }
        }
    );
    // The `async` block as the whole body, returning a `Result`.
    let parse = define_tool!(
        /// Parses a number.
        #[tool(name = "parse")]
        |text: String| async move { text.trim().parse::<i64>().map_err(|e| e.to_string()) }
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(greet);
    let _ = registry.register(parse);
}
