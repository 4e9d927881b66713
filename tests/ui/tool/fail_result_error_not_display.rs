use tool_sdk::tool;

#[derive(Debug)]
struct WeatherError;

/// Gets the weather.
#[tool]
fn get_weather(city: String) -> Result<String, WeatherError> {
    if city.is_empty() {
        return Err(WeatherError);
    }
    Ok(city)
}

fn main() {}
