//! Quickstart: a few functions become tools, go into a registry, and a tool-calling loop runs a
//! model's calls until it answers.
//!
//! By default the model is a **scripted stand-in** (`ScriptedModel`): it replays fixed replies
//! (one call wrong on purpose, which the loop sends back to it to correct), so the example runs
//! offline and always the same way.
//!
//! ```text
//! cargo run --example quickstart
//! ```
//!
//! With a real model configured in the environment, it answers instead
//! ([`tool_sdk::model::from_env`]; the first that is set wins):
//!
//! - `OPENAI_BASE_URL` + `OPENAI_MODEL` (+ `OPENAI_API_KEY` for OpenAI): an OpenAI-compatible
//!   server (OpenAI, Ollama, vLLM, llama.cpp);
//! - `ANTHROPIC_API_KEY` + `ANTHROPIC_MODEL` (+ `ANTHROPIC_BASE_URL`): Anthropic's Messages API;
//! - `GEMINI_API_KEY` + `GEMINI_MODEL` (+ `GEMINI_BASE_URL`): Google's Gemini API.
//!
//! ```text
//! OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5 cargo run --example quickstart
//! ANTHROPIC_API_KEY=sk-ant-... ANTHROPIC_MODEL=claude-sonnet-4-5 cargo run --example quickstart
//! GEMINI_API_KEY=AIza... GEMINI_MODEL=gemini-2.5-flash cargo run --example quickstart
//! ```
//!
//! It says at start which model answers.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tool_sdk::model;
use tool_sdk::run::{LoopEvent, LoopStatus, ToolLoop};
use tool_sdk::{tool, tools, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};

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

/// The scripted stand-in for a model: the replies it gives, round by round.
fn scripted_model() -> ScriptedModel {
    let calls = |calls: &[(&str, &str, &str)]| {
        AssistantMessage::with_tool_calls(
            calls
                .iter()
                .map(|(id, name, args)| ToolCall::new(*id, *name, *args))
                .collect(),
        )
    };
    ScriptedModel::new([
        calls(&[
            ("call_1", "get_weather", r#"{"city": "Lisbon"}"#),
            ("call_2", "get_weather", r#"{"city": 42}"#),
        ]),
        calls(&[
            (
                "call_3",
                "get_weather",
                r#"{"city": "Boston", "unit": "fahrenheit"}"#,
            ),
            (
                "call_4",
                "save_note",
                r#"{"text": "Pack an umbrella for Boston"}"#,
            ),
        ]),
        calls(&[("call_5", "list_notes", "{}")]),
        AssistantMessage {
            text: Some("Lisbon is 18.5 °C and Boston 65.3 °F; I noted the umbrella.".into()),
            tool_calls: vec![],
        },
    ])
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry.register(GetWeatherTool)?;
    registry.register_set(Arc::new(Notebook::default()))?;

    println!("Tools offered to the model:");
    for definition in registry.definitions() {
        println!("  {}: {}", definition.name, definition.description);
    }

    let model = match model::from_env() {
        Ok(Some(real)) => real,
        Ok(None) => Box::new(scripted_model()),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(2);
        }
    };
    println!("\n[{}]\n", model.description());
    let agent = ToolLoop::new(model, registry);
    let agent = agent.with_event_listener(|event| match event {
        LoopEvent::ModelCalled { round } => println!("-- round {round}: model call"),
        LoopEvent::ToolStarted { name, key } => println!("   call   {name} [{key}]"),
        _ => {}
    });
    let mut conversation = vec![Message::user(
        "What's the weather in Lisbon and Boston? Note anything to pack.",
    )];
    let outcome = agent.run(&mut conversation).await;

    println!("\nConversation:");
    for message in &conversation {
        match message {
            Message::User { content } => println!("  user:      {content}"),
            Message::Assistant(reply) => {
                for call in &reply.tool_calls {
                    println!("  assistant: {}({})", call.name, call.arguments);
                }
                if let Some(text) = &reply.text {
                    println!("  assistant: {text}");
                }
            }
            Message::Tool(result) => {
                println!("  tool:      [{:?}] {}", result.status, result.content)
            }
            Message::System { content } => println!("  system:    {content}"),
        }
    }
    match outcome.status {
        LoopStatus::Answered(_) => println!("\nanswered after {} rounds", outcome.rounds),
        other => println!("\nstopped: {other:?}"),
    }
    Ok(())
}
