use tool_sdk::tool;

/// Gets the weather.
#[tool]
fn get_weather(#[arg(rename = "town", rename = "place")] city: String) -> String {
    city
}

fn main() {}
