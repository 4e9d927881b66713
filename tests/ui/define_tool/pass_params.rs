#![deny(warnings)]

use serde::Deserialize;
use tool_sdk::{define_tool, ToolRegistry};

#[derive(Deserialize, schemars::JsonSchema)]
enum Unit {
    Celsius,
    Fahrenheit,
}

fn main() {
    let forecast = define_tool!(
        /// Gets a forecast.
        #[tool(name = "get_forecast")]
        |
            /// The city.
            city: &str,
            /// Days ahead.
            #[arg(default = 3)]
            days: u8,
            /// Whether to include the hourly forecast.
            #[arg(default)]
            hourly: bool,
            #[arg(rename = "unit", description = "The temperature unit.")]
            temperature_unit: Option<Unit>,
            /// Places to skip.
            #[arg(default = vec![String::from("nowhere")])]
            skip: Vec<String>,
            r#type: Option<String>,
            tags: &[String],
        | {
            let unit = match temperature_unit {
                Some(Unit::Celsius) | None => "C",
                Some(Unit::Fahrenheit) => "F",
            };
            format!(
                "{city}: {days} days, hourly {hourly}, {unit}, skip {skip:?}, {type:?}, {tags:?}",
                r#type = r#type
            )
        }
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(forecast);
}
