use tool_sdk::tools;

struct Weather;

#[tools]
impl Weather {
    /// Gets the weather.
    #[tool(crate = tool_sdk)]
    fn get_weather(&self, city: String) -> String {
        city
    }
}

fn main() {}
