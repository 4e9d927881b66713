use tool_sdk::define_tool;

#[derive(schemars::JsonSchema)]
struct City {
    name: String,
}

fn main() {
    let _tool = define_tool!(
        /// Gets the weather.
        #[tool(name = "get_weather")]
        |city: City| format!("sunny in {}", city.name)
    );
}
