use tool_sdk::tools;

trait Forecast {
    fn get_weather(&self, city: String) -> String;
}

struct Weather;

#[tools]
impl Forecast for Weather {
    /// Gets the weather.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }
}

fn main() {}
