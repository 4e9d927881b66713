use tool_sdk::tool;

struct Forecast {
    celsius: f64,
}

/// Gets the weather.
#[tool]
fn get_weather(city: String) -> Forecast {
    Forecast {
        celsius: city.len() as f64,
    }
}

fn main() {}
