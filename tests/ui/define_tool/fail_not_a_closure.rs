use tool_sdk::define_tool;

fn get_weather(city: String) -> String {
    format!("sunny in {city}")
}

fn main() {
    let _tool = define_tool!(
        /// Gets the weather.
        #[tool(name = "get_weather")]
        get_weather
    );
}
