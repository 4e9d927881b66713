use tool_sdk::tool;

/// Gets the weather.
#[tool(name = "get_the_current_weather_for_a_city_anywhere_in_the_world_right_now_please")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
