use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        #[tool(name = "get_weather")]
        |city: String| format!("sunny in {city}")
    );
}
