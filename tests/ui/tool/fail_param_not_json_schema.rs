use tool_sdk::tool;

#[derive(serde::Deserialize)]
struct City {
    name: String,
}

/// Gets the weather.
#[tool]
fn get_weather(city: City) -> String {
    city.name
}

fn main() {}
