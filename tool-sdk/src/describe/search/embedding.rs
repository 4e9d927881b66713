//! A strategy over embeddings the application computes (a local model, a provider's API).

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::define::ToolDefinition;
use crate::describe::search::document::summary;
use crate::describe::search::fingerprint::fingerprint;
use crate::describe::search::{SearchRequest, SearchResult, SearchStrategy};

type Embed = dyn Fn(&str) -> Vec<f32> + Send + Sync;

/// Ranks tools by cosine similarity between the query's embedding and each tool's (its name
/// and description), with `embed` supplied by the application. A tool's embedding is
/// computed once per text it embeds, so a changed description is embedded anew, and the
/// vectors of a set of tools are gathered once for all the searches of that set. When no tool
/// has a positive similarity, the result holds the tools in their order, marked weak.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::search::{EmbeddingSearch, SearchRequest, SearchStrategy};
/// use tool_sdk::define::ToolDefinition;
///
/// // A toy embedding: counts of two words.
/// let search = EmbeddingSearch::new(|text: &str| {
///     let text = text.to_lowercase();
///     vec![text.matches("weather").count() as f32, text.matches("flight").count() as f32]
/// });
/// let schema = json!({"type": "object", "properties": {}});
/// let tools = [
///     ToolDefinition::new("get_weather", "Weather now.", schema.clone()),
///     ToolDefinition::new("book_flight", "Books a flight.", schema),
/// ];
/// let refs: Vec<&ToolDefinition> = tools.iter().collect();
/// assert_eq!(search.search(&SearchRequest::new("a flight to Oslo", &refs, 1)).found, [1]);
/// ```
pub struct EmbeddingSearch {
    embed: Box<Embed>,
    keys: RandomState,
    /// Per text embedded, its vector.
    cache: Mutex<HashMap<String, Arc<[f32]>>>,
    /// The last set of tools searched, keyed like [`Bm25Search`](super::Bm25Search)'s index.
    index: Mutex<Option<Arc<Vectors>>>,
}

/// The vectors of a set of tools, in its order, each with its norm.
struct Vectors {
    fingerprint: u64,
    tools: Vec<(Arc<[f32]>, f32)>,
}

impl EmbeddingSearch {
    /// A strategy embedding texts with `embed`.
    pub fn new(embed: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static) -> Self {
        Self {
            embed: Box::new(embed),
            keys: RandomState::new(),
            cache: Mutex::new(HashMap::new()),
            index: Mutex::new(None),
        }
    }

    /// The vectors of `tools`, gathered unless the last set searched had the same content.
    fn vectors(&self, tools: &[&ToolDefinition]) -> Arc<Vectors> {
        let fingerprint = fingerprint(&self.keys, tools);
        let mut slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(vectors) = slot.as_ref().filter(|v| v.fingerprint == fingerprint) {
            return Arc::clone(vectors);
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let tools = tools
            .iter()
            .map(|tool| {
                // Keyed by the text embedded, not the name: a new description, a new vector.
                let text = summary(tool);
                let vector = match cache.get(&text) {
                    Some(vector) => Arc::clone(vector),
                    None => {
                        let vector: Arc<[f32]> = (self.embed)(&text).into();
                        cache.insert(text, Arc::clone(&vector));
                        vector
                    }
                };
                let norm = norm(&vector);
                (vector, norm)
            })
            .collect();
        let vectors = Arc::new(Vectors { fingerprint, tools });
        *slot = Some(Arc::clone(&vectors));
        vectors
    }
}

fn norm(vector: &[f32]) -> f32 {
    vector.iter().map(|x| x * x).sum::<f32>().sqrt()
}

/// The cosine of two vectors, given their norms; 0 when either is zero.
fn cosine(a: &[f32], a_norm: f32, b: &[f32], b_norm: f32) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let denominator = a_norm * b_norm;
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

impl SearchStrategy for EmbeddingSearch {
    fn search(&self, request: &SearchRequest<'_>) -> SearchResult {
        let query = (self.embed)(request.query);
        let query_norm = norm(&query);
        let vectors = self.vectors(request.tools);
        let mut scores: Vec<(f32, usize)> = vectors
            .tools
            .iter()
            .enumerate()
            .filter(|(i, _)| !request.is_skipped(*i))
            .map(|(i, (vector, norm))| (cosine(&query, query_norm, vector, *norm), i))
            .collect();
        // Stable: without any positive similarity, the tools keep their order.
        scores.sort_by(|a, b| b.0.total_cmp(&a.0));
        let weak = scores.first().is_none_or(|(score, _)| *score <= 0.0);
        let found = scores
            .into_iter()
            .filter(|(score, _)| weak || *score > 0.0)
            .take(request.limit)
            .map(|(_, i)| i)
            .collect();
        if weak {
            SearchResult::guesses(found)
        } else {
            SearchResult::matches(found)
        }
    }
}

impl fmt::Debug for EmbeddingSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cached = self.cache.lock().map(|c| c.len()).unwrap_or(0);
        f.debug_struct("EmbeddingSearch")
            .field("cached", &cached)
            .finish_non_exhaustive()
    }
}
