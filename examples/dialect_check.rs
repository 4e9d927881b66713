//! A tool checked against the providers' schema dialects when it is compiled.
//!
//! ```text
//! cargo run --example dialect_check
//! ```
//!
//! `#[tool(dialects(...))]` names the dialects a tool must fit (`dialects = [...]` under
//! `[package.metadata.tool-sdk]` in a package's `Cargo.toml` chooses them for every tool of
//! that package). A tool that a chosen dialect cannot take fails `cargo check`, in the editor,
//! before anything runs.
//!
//! `tag_photo` first took its labels as a map, `labels: HashMap<String, String>`, and
//! `cargo check` said, at that parameter:
//!
//! ```text
//! error[E0080]: evaluation panicked: tool `tag_photo` cannot be described for OpenAiStrict: at
//!   `/properties/labels`: a map (an object whose keys are open: `additionalProperties`) has no
//!   equivalent here, where every object must be closed
//!   tool `tag_photo` cannot be described for AnthropicStrict: at `/properties/labels`: (...)
//!   tool `tag_photo` cannot be described for Gemini: at `/properties/labels`: a map (...) has
//!   no equivalent here, where `Schema` has no `additionalProperties` (the Developer API's)
//!   --> examples/dialect_check.rs
//!    |
//!    |     labels: HashMap<String, String>,
//!    |     ^^^^^^ evaluation of `_::_` failed here
//! ```
//!
//! Gemini's `Schema` (the `v1` API's `parameters`) has no way to say "any key"; neither has
//! OpenAI's strict mode, where every object is closed. The fix is a list of pairs, which every
//! dialect says: `labels: Vec<Label>`, below. (Choosing `gemini_json_schema`, the `v1beta`
//! API's `parametersJsonSchema`, which says maps, is the other way out.)

use tool_sdk::describe::Described;
use tool_sdk::describe::Dialect;
use tool_sdk::{tool, Tool, ToolRegistry};

/// A label of a photo: a name and its value.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Label {
    /// What the label is about, such as `place`.
    name: String,
    /// Its value, such as `Oslo`.
    value: String,
}

/// Tags a photo with labels.
#[tool(dialects(gemini, openai_strict, anthropic_strict))]
fn tag_photo(
    /// The photo's id.
    photo: u64,
    /// The labels, once each.
    labels: Vec<Label>,
) -> String {
    let labels: Vec<String> = labels
        .iter()
        .map(|label| format!("{}={}", label.name, label.value))
        .collect();
    format!("photo {photo} tagged {}", labels.join(", "))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry.register(TagPhotoTool)?;
    // What each provider is sent: checked when compiled, lowered when registered.
    for dialect in [
        Dialect::Gemini,
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
    ] {
        let definition = TagPhotoTool.definition();
        let schema = tool_sdk::describe::lower(&definition.name, &definition.parameters, dialect)?;
        println!("{dialect:?}:\n{}\n", serde_json::to_string_pretty(&schema)?);
    }
    Ok(())
}
