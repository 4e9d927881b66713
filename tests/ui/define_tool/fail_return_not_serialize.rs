use tool_sdk::define_tool;

struct Weather {
    summary: String,
}

fn main() {
    let _tool = define_tool!(
        /// Gets the weather.
        #[tool(name = "get_weather")]
        |city: String| Weather {
            summary: format!("sunny in {city}"),
        }
    );
}
