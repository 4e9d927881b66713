use tool_sdk::tool;

#[derive(schemars::JsonSchema)]
struct City {
    name: String,
}

/// Gets the weather.
#[tool]
fn get_weather(city: City) -> String {
    city.name
}

fn main() {}
