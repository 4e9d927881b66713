//! A strategy over embeddings the application computes (a local model, a provider's API).

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use crate::search::SearchStrategy;
use crate::ToolDefinition;

type Embed = dyn Fn(&str) -> Vec<f32> + Send + Sync;

/// Ranks tools by cosine similarity between the query's embedding and each tool's (its name
/// and description), with `embed` supplied by the application. Tool embeddings are computed
/// once per tool name.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::search::{EmbeddingSearch, SearchStrategy};
/// use tool_sdk::ToolDefinition;
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
/// assert_eq!(search.search("a flight to Oslo", &refs, 1), [1]);
/// ```
pub struct EmbeddingSearch {
    embed: Box<Embed>,
    cache: Mutex<HashMap<String, Vec<f32>>>,
}

impl EmbeddingSearch {
    /// A strategy embedding texts with `embed`.
    pub fn new(embed: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static) -> Self {
        Self {
            embed: Box::new(embed),
            cache: Mutex::new(HashMap::new()),
        }
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let denominator = norm(a) * norm(b);
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

impl SearchStrategy for EmbeddingSearch {
    fn search(&self, query: &str, tools: &[&ToolDefinition], limit: usize) -> Vec<usize> {
        let query = (self.embed)(query);
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut scores: Vec<(f32, usize)> = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| {
                let vector = cache.entry(tool.name.clone()).or_insert_with(|| {
                    (self.embed)(&format!("{}: {}", tool.name, tool.description))
                });
                (cosine(&query, vector), i)
            })
            .filter(|(score, _)| *score > 0.0)
            .collect();
        scores.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scores.into_iter().take(limit).map(|(_, i)| i).collect()
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
