use tool_sdk::tool;

/// Gets the weather.
#[tool]
struct GetWeather {
    city: String,
}

fn main() {}
