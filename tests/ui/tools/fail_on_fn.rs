use tool_sdk::tools;

/// Gets the weather.
#[tools]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
