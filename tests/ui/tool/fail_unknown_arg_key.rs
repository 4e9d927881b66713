use tool_sdk::tool;

/// Gets the weather.
#[tool]
fn get_weather(#[arg(renmae = "town")] city: String) -> String {
    city
}

fn main() {}
