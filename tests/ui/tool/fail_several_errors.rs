use tool_sdk::tool;

#[tool(name = "get weather", retries = 3)]
fn get_weather(
    city: String,
    #[arg(rename = "city")] town: String,
    #[arg(unit)] degrees: u8,
    (lat, lon): (f64, f64),
) -> String {
    format!("{city} {town} {degrees} {lat} {lon}")
}

fn main() {}
