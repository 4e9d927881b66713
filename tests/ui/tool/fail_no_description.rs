use tool_sdk::tool;

#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
