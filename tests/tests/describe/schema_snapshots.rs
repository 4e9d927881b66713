//! The schemas `#[tool]` generates, as committed snapshots: descriptions, `required`, types and
//! defaults exactly as the signatures say. Every one passes the JSON Schema 2020-12 meta-schema,
//! and every `$ref` resolves inside it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_sdk::{
    define::{CallId, State},
    tool, Tool,
};

/// Gets the weather forecast for a city.
#[tool]
fn get_weather(
    /// The city, such as "Lisbon".
    city: String,
    /// Days ahead, 1 to 7.
    #[arg(default = 1)]
    days: u8,
    /// Include hourly detail.
    hourly: Option<bool>,
) -> String {
    format!("{city} {days} {hourly:?}")
}

/// A passenger of a booking.
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Passenger {
    /// Full name as on the passport.
    name: String,
    /// Age in years.
    age: u8,
}

/// Cabin class.
#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Cabin {
    /// The cheapest seats.
    Economy,
    Business,
    First,
}

/// Books a flight.
#[tool(name = "book_flight", timeout = "10s")]
async fn book(
    /// IATA code of the departure airport.
    #[arg(rename = "from")]
    origin: &str,
    /// IATA code of the arrival airport.
    #[arg(rename = "to")]
    destination: &str,
    passengers: Vec<Passenger>,
    #[arg(default)] cabin: Option<Cabin>,
    #[context] _call: CallId,
) -> Result<String, String> {
    Ok(format!(
        "{origin}-{destination} {} {}",
        passengers.len(),
        cabin.is_some()
    ))
}

/// Tags a document.
#[tool]
fn tag(
    #[arg(description = "Document id.")] id: u64,
    labels: &[String],
    /// Extra metadata.
    metadata: BTreeMap<String, String>,
    #[arg(default = 0.5)] threshold: f64,
    #[context] _state: State<String>,
) {
    let _ = (id, labels, metadata, threshold);
}

/// Lists nothing.
#[tool]
fn nothing() -> Vec<u8> {
    Vec::new()
}

fn definitions() -> Vec<&'static tool_sdk::define::ToolDefinition> {
    vec![
        GetWeatherTool.definition(),
        BookTool.definition(),
        TagTool.definition(),
        NothingTool.definition(),
    ]
}

#[test]
fn schemas_match_their_snapshots() {
    insta::assert_json_snapshot!("get_weather", GetWeatherTool.definition());
    insta::assert_json_snapshot!("book_flight", BookTool.definition());
    insta::assert_json_snapshot!("tag", TagTool.definition());
    insta::assert_json_snapshot!("nothing", NothingTool.definition());
}

#[test]
fn every_schema_passes_the_2020_12_meta_schema() {
    for definition in definitions() {
        if let Err(error) = jsonschema::draft202012::meta::validate(&definition.parameters) {
            panic!("{}: {error}", definition.name);
        }
        assert_eq!(
            definition.parameters["type"], "object",
            "{}",
            definition.name
        );
        assert!(
            definition.parameters["properties"].is_object(),
            "{}",
            definition.name
        );
    }
}

#[test]
fn every_ref_resolves_inside_the_schema() {
    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    out.push(r);
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    for definition in definitions() {
        let mut found = Vec::new();
        refs(&definition.parameters, &mut found);
        for reference in found {
            let pointer = reference.strip_prefix('#').expect("local reference");
            assert!(
                definition.parameters.pointer(pointer).is_some(),
                "{}: {reference} does not resolve",
                definition.name
            );
        }
    }
    // A validator built from the schema alone accepts a real call: nothing outside is needed.
    let validator = jsonschema::validator_for(&BookTool.definition().parameters).unwrap();
    let call = serde_json::json!({
        "from": "LIS", "to": "OSL",
        "passengers": [{ "name": "Ana", "age": 34 }],
        "cabin": "business"
    });
    assert!(validator.is_valid(&call));
}
