//! Tool search: with hundreds of tools, send the model a search tool instead of every
//! definition, and add what it finds to the following requests of the run.
//!
//! A tool is deferred by its [`Defer`](crate::define::Defer) option: `Always`, or `Auto` when the run
//! holds more tools than [`LoopOptions::defer_threshold`](crate::run::LoopOptions). While any
//! tool is deferred, the loop offers [`SEARCH_TOOL_NAME`]; what a search finds becomes callable
//! for the rest of the run (add-only). A call to a deferred tool that no search found is
//! answered like an unknown tool, with the hint to search.
//!
//! A [`SearchStrategy`] ranks the deferred tools: [`Bm25Search`] (the default),
//! [`EmbeddingSearch`] over an [`Embedder`] (an embedding model over HTTP, or the
//! application's own), or [`HybridSearch`], the two fused.
#![doc = include_str!("guide.md")]

mod bm25;
mod detect;
mod diversify;
mod document;
mod embedder;
mod embedding;
mod fallback;
mod fingerprint;
mod fold;
mod hybrid;
mod language;
mod request;
mod stop_words;
mod tokenize;
mod vectors;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use serde_json::{json, Value};

use crate::define::ToolDefinition;
use crate::describe::lowered::lower_definition;
use crate::describe::{Dialect, Lowered, LoweringError};

pub use bm25::Bm25Search;
pub use embedder::{EmbedError, EmbedFuture, Embedder, TextKind};
pub use embedding::{EmbeddingSearch, DEFAULT_EMBED_TIMEOUT};
pub use hybrid::{HybridSearch, DEFAULT_RANK_CONSTANT, DEFAULT_SEMANTIC_WEIGHT};
pub use language::Language;
pub use request::{SearchRequest, SearchResult};
pub use vectors::{VectorFuture, VectorStore, VectorStoreError};

/// The name of the built-in search tool.
pub const SEARCH_TOOL_NAME: &str = "search_tools";

/// Results a search returns unless the model asks for another number.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// Ranks tools for a query.
///
/// The loop passes every deferred tool of the run, in the same order at every search of the
/// run, and marks those an earlier search found as skipped: a strategy can build its index
/// once per set of tools and leave the skipped ones out at query time. Definitions can change
/// between runs under an unchanged name, so an index must be keyed by what it indexed, not by
/// names.
///
/// A search never fails: a strategy whose embedder fails ranks that request lexically and
/// says so in [`SearchResult::fell_back`].
pub trait SearchStrategy: Send + Sync {
    /// The best matches for the request's query among the tools it does not skip, best first,
    /// at most its limit. When nothing matches, the closest guesses, marked weak.
    fn search<'a>(&'a self, request: &'a SearchRequest<'a>) -> SearchFuture<'a>;
}

/// What [`SearchStrategy::search`] returns.
pub type SearchFuture<'a> = Pin<Box<dyn Future<Output = SearchResult> + Send + 'a>>;

impl fmt::Debug for dyn SearchStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SearchStrategy")
    }
}

/// The definition of the built-in search tool.
pub fn search_tool_definition() -> ToolDefinition {
    search_tool().clone()
}

/// The built-in search tool's definition, built once: every run offers the same one.
pub(crate) fn search_tool() -> &'static ToolDefinition {
    static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
    DEFINITION.get_or_init(|| {
        ToolDefinition::new(
            SEARCH_TOOL_NAME,
            "Searches the tools available beyond those listed, by what you need to do. The \
             tools found can be called from your next reply.",
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
    })
}

/// The built-in search tool's parameters in `dialect`, lowered once for every run.
pub(crate) fn search_tool_lowered(dialect: Dialect) -> Result<Lowered, LoweringError> {
    type Slot = OnceLock<Result<Lowered, LoweringError>>;
    static LOWERED: [Slot; Dialect::ALL.len()] = [const { Slot::new() }; Dialect::ALL.len()];
    LOWERED[dialect.index()]
        .get_or_init(|| lower_definition(search_tool(), dialect))
        .clone()
}

/// The text the model reads for a search's results; `weak` when they are guesses.
pub(crate) fn describe_found(found: &[&ToolDefinition], weak: bool) -> String {
    if found.is_empty() {
        return "No tool matches; every tool available has been found already.".to_owned();
    }
    let listed: Vec<Value> = found
        .iter()
        .map(|d| json!({ "name": d.name, "description": d.description }))
        .collect();
    let intro = if weak {
        "No tool matches these words; these are the closest guesses, callable from your next \
         reply. If none fits, search again with other words:"
    } else {
        "Found these tools; they can be called from your next reply:"
    };
    format!("{intro} {}", Value::Array(listed))
}
