use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Gets the weather.
        #[tool(name = "get_weather")]
        #[inline]
        |city: String| format!("sunny in {city}")
    );
}
