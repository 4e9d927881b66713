#![deny(warnings)]

use std::sync::{Arc, Mutex};

use tool_sdk::{define_tool, ToolRegistry};

async fn lookup(city: &str) -> Result<String, String> {
    Ok(format!("sunny in {city}"))
}

fn main() {
    let log = Arc::new(Mutex::new(Vec::new()));
    // `async move |..|`, awaiting inside, with a return type.
    let weather = define_tool!(
        /// Gets the weather.
        #[tool(name = "get_weather")]
        async move |city: String| -> Result<String, String> {
            let report = lookup(&city).await?;
            log.lock().map_err(|_| "log unavailable".to_owned())?.push(city);
            Ok(report)
        }
    );
    // `async |..|` without `move` and without a return type.
    let echo = define_tool!(
        /// Echoes a word.
        #[tool(name = "echo")]
        async |word: String| word
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(weather);
    let _ = registry.register(echo);
}
