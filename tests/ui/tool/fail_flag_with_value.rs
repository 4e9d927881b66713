use tool_sdk::tool;

/// Gets the weather.
#[tool(return_direct = true)]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
