use tool_sdk::tool;

/// Gets the weather.
#[tool]
fn get_weather(city: String, #[arg(rename = "city")] town: String) -> String {
    city + &town
}

fn main() {}
