use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        #[tool(name = "get weather", retries = 3)]
        #[inline]
        |city: String, (lat, lon): (f64, f64), days| format!("{city} {lat} {lon} {days}")
    );
}
