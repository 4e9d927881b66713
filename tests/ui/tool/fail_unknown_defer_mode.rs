use tool_sdk::tool;

/// Gets the weather.
#[tool(defer = "later")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
