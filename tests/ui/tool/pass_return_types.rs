#![deny(warnings)]

use tool_sdk::tool;

#[derive(serde::Serialize)]
struct Forecast {
    celsius: f64,
}

/// Returns text.
#[tool]
fn text() -> String {
    String::from("text")
}

/// Returns nothing.
#[tool]
fn nothing() {}

/// Returns unit explicitly.
#[tool]
fn unit() -> () {}

/// Returns a struct.
#[tool]
fn forecast() -> Forecast {
    Forecast { celsius: 21.5 }
}

/// Returns a result.
#[tool]
fn checked(value: i64) -> Result<Forecast, String> {
    if value < 0 {
        return Err(String::from("negative"));
    }
    Ok(Forecast {
        celsius: value as f64,
    })
}

/// Returns a result of text, asynchronously.
#[tool]
async fn checked_text(value: i64) -> Result<String, std::io::Error> {
    Ok(value.to_string())
}

/// Returns a result of unit.
#[tool]
fn checked_unit() -> Result<(), String> {
    Ok(())
}

fn main() {}
