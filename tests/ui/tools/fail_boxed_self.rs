use tool_sdk::tools;

struct Weather;

#[tools]
impl Weather {
    /// Gets the weather.
    #[tool]
    fn get_weather(self: Box<Self>, city: String) -> String {
        city
    }
}

fn main() {}
