use tool_sdk::define_tool;

async fn fetch(city: String) -> String {
    format!("sunny in {city}")
}

fn main() {
    let _tool = define_tool!(
        /// Gets the weather.
        #[tool(name = "get_weather")]
        |city: String| fetch(city)
    );
}
