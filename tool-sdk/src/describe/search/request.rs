//! What a strategy is asked, and what it answers.

use crate::define::ToolDefinition;
use crate::describe::search::EmbedError;

/// One search: a query over a set of tools, some of which may be skipped.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::search::{Bm25Search, SearchRequest, SearchStrategy};
/// use tool_sdk::define::ToolDefinition;
///
/// let schema = json!({"type": "object", "properties": {}});
/// let tools = [
///     ToolDefinition::new("get_weather", "Current weather for a city.", schema.clone()),
///     ToolDefinition::new("get_forecast", "Weather forecast for a city.", schema),
/// ];
/// let refs: Vec<&ToolDefinition> = tools.iter().collect();
/// // The first was found by an earlier search: only the second can come back.
/// let request = SearchRequest::new("weather in Oslo", &refs, 5).with_skip(&[true]);
/// assert_eq!(Bm25Search::new().rank(&request).found, [1]);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SearchRequest<'a> {
    /// What the model is looking for.
    pub query: &'a str,
    /// The tools searched, the same set in the same order at every search of a run.
    pub tools: &'a [&'a ToolDefinition],
    /// `skip[i]` leaves `tools[i]` out of the results; indices past its end are not skipped.
    pub skip: &'a [bool],
    /// At most this many results.
    pub limit: usize,
}

impl<'a> SearchRequest<'a> {
    /// A search of `tools` for `query`, skipping none, returning at most `limit`.
    pub fn new(query: &'a str, tools: &'a [&'a ToolDefinition], limit: usize) -> Self {
        Self {
            query,
            tools,
            skip: &[],
            limit,
        }
    }

    /// Leaves out `tools[i]` wherever `skip[i]` is true.
    pub fn with_skip(mut self, skip: &'a [bool]) -> Self {
        self.skip = skip;
        self
    }

    /// Whether `tools[index]` is left out.
    pub fn is_skipped(&self, index: usize) -> bool {
        self.skip.get(index).copied().unwrap_or(false)
    }
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchResult {
    /// Indices into the request's tools, best first.
    pub found: Vec<usize>,
    /// Nothing matched the query: `found` holds the closest guesses, and the model is told so
    /// it can rephrase.
    pub weak: bool,
    /// Why the embedder could not serve this request, which was ranked by BM25 alone instead;
    /// `None` when nothing fell back.
    pub fell_back: Option<EmbedError>,
}

impl SearchResult {
    /// Tools that match the query.
    pub fn matches(found: Vec<usize>) -> Self {
        Self {
            found,
            weak: false,
            fell_back: None,
        }
    }

    /// Guesses, for a query nothing matched.
    pub fn guesses(found: Vec<usize>) -> Self {
        Self {
            found,
            weak: true,
            fell_back: None,
        }
    }

    /// This result, ranked lexically because the embedder failed with `error`.
    pub fn with_fell_back(mut self, error: EmbedError) -> Self {
        self.fell_back = Some(error);
        self
    }
}
