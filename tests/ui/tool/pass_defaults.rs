#![deny(warnings)]

use tool_sdk::tool;

const DEFAULT_UNIT: &str = "celsius";

/// Gets the weather.
#[tool]
fn get_weather(
    city: String,
    /// Days ahead; the type's default (0) when absent.
    #[arg(default)]
    days: u32,
    #[arg(default = 3)] hours: u8,
    #[arg(default = DEFAULT_UNIT.to_owned())] unit: String,
    #[arg(default = vec![String::from("rain")])] fields: Vec<String>,
) -> String {
    format!("{city} {days} {hours} {unit} {fields:?}")
}

fn main() {}
