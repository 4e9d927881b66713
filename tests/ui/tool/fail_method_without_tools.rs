use tool_sdk::tool;

struct Weather;

impl Weather {
    /// Gets the weather.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }
}

fn main() {}
