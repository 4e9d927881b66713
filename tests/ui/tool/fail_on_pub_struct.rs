use tool_sdk::tool;

/// Gets the weather.
#[tool]
pub struct GetWeather {
    pub city: String,
}

fn main() {}
