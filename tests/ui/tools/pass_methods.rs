#![deny(warnings)]

use tool_sdk::tools;

struct Weather {
    unit: String,
}

#[tools]
impl Weather {
    /// Gets the weather.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        format!("{city}: 20 {}", self.unit)
    }

    /// Gets the forecast.
    #[tool(name = "forecast", timeout = "10s")]
    async fn get_forecast(&self, city: &str, #[arg(default = 3)] days: u8) -> String {
        format!("{city}: {days} days in {}", self.unit)
    }

    /// Lists the supported units; takes no instance.
    #[tool]
    fn units() -> Vec<String> {
        vec![String::from("celsius")]
    }

    /// Builds a weather service, `Self` in a parameter.
    #[tool]
    fn with_unit(unit: String) -> String {
        Self { unit }.unit
    }

    /// Not a tool.
    fn helper(&self) -> &str {
        &self.unit
    }
}

fn main() {
    let weather = Weather {
        unit: String::from("celsius"),
    };
    let _ = weather.helper();
}
