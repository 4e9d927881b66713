use tool_sdk::tool;

/// Gets the weather.
#[tool(timeuot = "5s")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
