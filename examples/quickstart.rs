//! Quickstart: a few functions become tools, go into a registry, and answer the tool calls of a
//! model.
//!
//! The model here is a **scripted stand-in**: it replays a fixed list of tool calls (one of them
//! wrong on purpose), so the example runs offline and always the same way.
//!
//! ```text
//! cargo run --example quickstart
//! ```

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tool_sdk::{tool, tools, ToolRegistry};

/// Gets the current weather for a city.
#[tool]
fn get_weather(
    /// The city, such as "Lisbon".
    city: String,
    /// Temperature unit.
    #[arg(default)]
    unit: Unit,
) -> Weather {
    // A real application would call a weather service here.
    let celsius = 18.5;
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 9.0 / 5.0 + 32.0,
    };
    Weather {
        city,
        temperature,
        unit,
        sky: "partly cloudy".into(),
    }
}

/// Temperature unit.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    #[default]
    Celsius,
    Fahrenheit,
}

#[derive(Serialize)]
struct Weather {
    city: String,
    temperature: f64,
    unit: Unit,
    sky: String,
}

/// A shared notebook: its methods are tools that all see the same notes.
#[derive(Default)]
struct Notebook {
    notes: Mutex<Vec<String>>,
}

#[tools]
impl Notebook {
    /// Saves a note and returns how many notes there are.
    #[tool]
    fn save_note(&self, text: String) -> Result<usize, String> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| "the notebook is unavailable")?;
        if text.trim().is_empty() {
            return Err("a note cannot be empty".into());
        }
        notes.push(text);
        Ok(notes.len())
    }

    /// Lists the saved notes.
    #[tool]
    async fn list_notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

/// The scripted stand-in for a model: the tool calls it "decides" to make, in order.
const SCRIPTED_CALLS: &[(&str, &str)] = &[
    ("get_weather", r#"{"city": "Lisbon"}"#),
    ("get_weather", r#"{"city": "Boston", "unit": "fahrenheit"}"#),
    ("save_note", r#"{"text": "Pack an umbrella for Boston"}"#),
    ("get_weather", r#"{"city": 42}"#),
    ("get_wether", r#"{"city": "Oslo"}"#),
    ("list_notes", "{}"),
];

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry.register(GetWeatherTool)?;
    registry.register_set(Arc::new(Notebook::default()))?;

    println!("Tools offered to the model:");
    for definition in registry.definitions() {
        println!("  {}: {}", definition.name, definition.description);
        println!("    parameters: {}", definition.parameters);
    }

    println!(
        "\n[scripted model] replaying {} tool calls\n",
        SCRIPTED_CALLS.len()
    );
    for (name, arguments) in SCRIPTED_CALLS {
        println!("call   {name}({arguments})");
        match registry.call(name, arguments).await {
            Ok(output) => println!("result {}\n", output.content()),
            Err(error) => {
                // What the developer sees, and what goes back to the model so it can retry.
                println!("error  {error}");
                println!("model sees: {}\n", error.model_message());
            }
        }
    }
    Ok(())
}
