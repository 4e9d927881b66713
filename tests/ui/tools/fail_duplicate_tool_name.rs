use tool_sdk::tools;

struct Weather;

#[tools]
impl Weather {
    /// Gets the weather.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }

    /// Gets the weather too.
    #[tool(name = "get_weather")]
    fn weather_again(&self, city: String) -> String {
        city
    }
}

fn main() {}
