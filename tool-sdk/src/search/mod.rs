//! Tool search: with hundreds of tools, send the model a search tool instead of every
//! definition, and add what it finds to the following requests of the run.
//!
//! A tool is deferred by its [`Defer`](crate::Defer) option: `Always`, or `Auto` when the run
//! holds more tools than [`LoopOptions::defer_threshold`](crate::run::LoopOptions). While any
//! tool is deferred, the loop offers [`SEARCH_TOOL_NAME`]; what a search finds becomes callable
//! for the rest of the run (add-only). A call to a deferred tool that no search found is
//! answered like an unknown tool, with the hint to search.

mod bm25;
mod embedding;

use std::fmt;

use serde_json::{json, Value};

use crate::ToolDefinition;

pub use bm25::Bm25Search;
pub use embedding::EmbeddingSearch;

/// The name of the built-in search tool.
pub const SEARCH_TOOL_NAME: &str = "search_tools";

/// Results a search returns unless the model asks for another number.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// Ranks tools for a query.
pub trait SearchStrategy: Send + Sync {
    /// Indices into `tools` of the best matches for `query`, best first, at most `limit`.
    fn search(&self, query: &str, tools: &[&ToolDefinition], limit: usize) -> Vec<usize>;
}

impl fmt::Debug for dyn SearchStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SearchStrategy")
    }
}

/// The definition of the built-in search tool.
pub fn search_tool_definition() -> ToolDefinition {
    ToolDefinition::new(
        SEARCH_TOOL_NAME,
        "Searches the tools available beyond those listed, by what you need to do. The tools \
         found can be called from your next reply.",
        json!({
            "type": "object",
            "properties": {
                "query": { "type": "string", "description": "What you need a tool for, in a few words." },
                "limit": { "type": ["integer", "null"], "minimum": 1, "maximum": 20,
                           "description": "How many tools to return (default 5)." }
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
}

/// The text the model reads for a search's results.
pub(crate) fn describe_found(found: &[&ToolDefinition]) -> String {
    if found.is_empty() {
        return "No tool matches; try other words.".to_owned();
    }
    let listed: Vec<Value> = found
        .iter()
        .map(|d| json!({ "name": d.name, "description": d.description }))
        .collect();
    format!(
        "Found these tools; they can be called from your next reply: {}",
        Value::Array(listed)
    )
}

/// Words of a text for matching: lowercase alphanumeric runs, camelCase and snake_case split,
/// stop words dropped, a light stemming of plural and verb endings.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && previous_lower && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        } else {
            previous_lower = false;
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
        .into_iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// Strips common endings, then keeps at most six characters: crude, but it joins
/// `probability`/`probabilities` and `genetic`/`genetically`, which is what recall needs.
fn stem(word: &str) -> String {
    let mut stem = word;
    for suffix in [
        "ically", "ally", "ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s",
    ] {
        if let Some(stripped) = word.strip_suffix(suffix) {
            if stripped.len() >= 3 {
                stem = stripped;
                break;
            }
        }
    }
    stem.chars().take(STEM_LENGTH).collect()
}

/// Characters a stem keeps.
const STEM_LENGTH: usize = 6;

const STOP_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "for",
    "on",
    "and",
    "or",
    "is",
    "are",
    "be",
    "with",
    "by",
    "at",
    "as",
    "it",
    "its",
    "this",
    "that",
    "from",
    "what",
    "which",
    "how",
    "me",
    "my",
    "i",
    "you",
    "your",
    "we",
    "can",
    "could",
    "would",
    "will",
    "please",
    "given",
    "if",
    "not",
    "do",
    "does",
    "get",
    "find",
    "e",
    "g",
    "eg",
    "default",
    "specified",
    "optional",
    "use",
    "using",
];

/// The searchable words of a definition, in two fields: its name (twice, as names are dense)
/// and description; then its parameters' names, descriptions and allowed values, which say
/// less about what the tool is for.
pub(crate) fn document_fields(definition: &ToolDefinition) -> (Vec<String>, Vec<String>) {
    let mut text = String::new();
    for _ in 0..2 {
        text.push_str(&definition.name.replace(['.', '_', '-'], " "));
        text.push(' ');
    }
    text.push_str(&definition.description);
    let mut parameters = String::new();
    if let Some(properties) = definition
        .parameters
        .get("properties")
        .and_then(Value::as_object)
    {
        for (name, property) in properties {
            parameters.push(' ');
            parameters.push_str(&name.replace(['_', '-'], " "));
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                parameters.push(' ');
                parameters.push_str(description);
            }
            if let Some(values) = property.get("enum").and_then(Value::as_array) {
                for value in values.iter().filter_map(Value::as_str) {
                    parameters.push(' ');
                    parameters.push_str(value);
                }
            }
        }
    }
    (tokens(&text), tokens(&parameters))
}
