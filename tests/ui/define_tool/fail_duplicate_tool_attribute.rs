use tool_sdk::define_tool;

fn main() {
    // Two `#[tool(...)]`: which keys hold would be a guess.
    let _twice = define_tool!(
        /// Gets the weather.
        #[tool(name = "weather")]
        #[tool(timeout = "5s")]
        |city: String| format!("sunny in {city}")
    );
    // No `#[tool(...)]` at all: the name is missing, said before the closure.
    let _unnamed = define_tool!(
        /// Gets the weather.
        |city: String| format!("sunny in {city}")
    );
}
