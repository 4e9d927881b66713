use tool_sdk::tool;

/// Gets the weather.
#[tool(timeout = "5 parsecs")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
