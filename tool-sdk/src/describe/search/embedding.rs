//! A strategy over embeddings: an embedding model's (over HTTP), or a function the application
//! supplies.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::define::ToolDefinition;
use crate::describe::search::document::summary;
use crate::describe::search::embedder::FnEmbedder;
use crate::describe::search::fingerprint::fingerprint;
use crate::describe::search::vectors::VectorCache;
use crate::describe::search::{
    Bm25Search, EmbedError, Embedder, SearchFuture, SearchRequest, SearchResult, SearchStrategy,
    TextKind, VectorStore,
};

/// How long the embedding of one search may take unless set: the query's vector, and those of
/// tools not embedded before.
pub const DEFAULT_EMBED_TIMEOUT: Duration = Duration::from_secs(5);

/// Ranks tools by cosine similarity between the query's embedding and each tool's (its name
/// and description).
///
/// A tool's vector is keyed by the text embedded, so a changed description is embedded anew
/// and an unchanged one never again: vectors are kept in memory, and in a [`VectorStore`]
/// (a run store) when one is set with [`with_store`](Self::with_store), so another process
/// sharing the store embeds nothing it has. The vectors of a set of tools are gathered once
/// for all the searches of that set. When no tool has a positive similarity, the result holds
/// the tools in their order, marked weak.
///
/// When the embedder fails, or the search's embedding takes longer than its
/// [timeout](Self::with_timeout), that request is ranked by [`Bm25Search`] instead, and the
/// result says why ([`SearchResult::fell_back`]); the loop reports it to its observers. A
/// search never fails.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::search::{EmbeddingSearch, SearchRequest, SearchStrategy};
/// use tool_sdk::define::ToolDefinition;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
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
/// let request = SearchRequest::new("a flight to Oslo", &refs, 1);
/// assert_eq!(search.search(&request).await.found, [1]);
/// # }
/// ```
pub struct EmbeddingSearch {
    embedder: Arc<dyn Embedder>,
    cache: VectorCache,
    timeout: Duration,
    keys: RandomState,
    /// The last set of tools searched, keyed like [`Bm25Search`]'s index.
    index: Mutex<Option<Arc<Vectors>>>,
    /// Ranks a request the embedder could not serve.
    lexical: Bm25Search,
}

/// The vectors of a set of tools, in its order, each with its norm.
struct Vectors {
    fingerprint: u64,
    tools: Vec<(Arc<[f32]>, f32)>,
}

impl EmbeddingSearch {
    /// A strategy embedding texts with `embed`, a function of one text that cannot fail.
    pub fn new(embed: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static) -> Self {
        Self::from_embedder(FnEmbedder(embed))
    }

    /// A strategy over `embedder`, such as an
    /// [`OpenAiEmbedder`](crate::model::openai::OpenAiEmbedder).
    pub fn from_embedder(embedder: impl Embedder + 'static) -> Self {
        Self::from_shared(Arc::new(embedder))
    }

    pub(crate) fn from_shared(embedder: Arc<dyn Embedder>) -> Self {
        Self {
            embedder,
            cache: VectorCache::default(),
            timeout: DEFAULT_EMBED_TIMEOUT,
            keys: RandomState::new(),
            index: Mutex::new(None),
            lexical: Bm25Search::new(),
        }
    }

    /// Keeps the tools' vectors in `store` too, and takes from it those kept already.
    pub fn with_store(mut self, store: Arc<dyn VectorStore>) -> Self {
        self.cache = VectorCache::with_store(store);
        self
    }

    /// How long the embedding of one search may take (default [`DEFAULT_EMBED_TIMEOUT`]):
    /// past it, the request is ranked lexically. Tool vectors that came in time are kept.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Embeds the tools of `tools` not embedded yet (from the store, if set, or else the
    /// embedder), without the search's timeout: at start-up, so that the first search waits
    /// only for its query's vector.
    ///
    /// # Errors
    ///
    /// The [`EmbedError`] of the embedder; the vectors made before it stay kept.
    pub async fn warm(&self, tools: &[&ToolDefinition]) -> Result<(), EmbedError> {
        self.vectors(tools).await.map(|_| ())
    }

    /// The vectors of `tools`, gathered unless the last set searched had the same content.
    async fn vectors(&self, tools: &[&ToolDefinition]) -> Result<Arc<Vectors>, EmbedError> {
        let fingerprint = fingerprint(&self.keys, tools);
        {
            let slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(vectors) = slot.as_ref().filter(|v| v.fingerprint == fingerprint) {
                return Ok(Arc::clone(vectors));
            }
        }
        // Keyed by the text embedded, not the name: a new description, a new vector.
        let texts: Vec<String> = tools.iter().map(|tool| summary(tool)).collect();
        let found = self.cache.vectors(&*self.embedder, &texts).await?;
        let tools = found
            .into_iter()
            .map(|vector| {
                let norm = norm(&vector);
                (vector, norm)
            })
            .collect();
        let vectors = Arc::new(Vectors { fingerprint, tools });
        *self.index.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&vectors));
        Ok(vectors)
    }

    /// The tools ranked by cosine, within the timeout.
    pub(crate) async fn rank(
        &self,
        request: &SearchRequest<'_>,
    ) -> Result<SearchResult, EmbedError> {
        let ranked = async {
            let vectors = self.vectors(request.tools).await?;
            let query = [request.query];
            let mut query = self.embedder.embed(&query, TextKind::Query).await?;
            let query = match query.pop() {
                Some(vector) if query.is_empty() => vector,
                _ => return Err(EmbedError::Malformed("not one vector for the query".into())),
            };
            ranking(&query, &vectors, request)
        };
        match tokio::time::timeout(self.timeout, ranked).await {
            Ok(result) => result,
            Err(_) => Err(EmbedError::TimedOut(self.timeout)),
        }
    }
}

/// The request's tools by cosine with `query`, best first.
fn ranking(
    query: &[f32],
    vectors: &Vectors,
    request: &SearchRequest<'_>,
) -> Result<SearchResult, EmbedError> {
    if let Some((vector, _)) = vectors.tools.iter().find(|(v, _)| v.len() != query.len()) {
        return Err(EmbedError::Dimensions {
            expected: vector.len(),
            got: query.len(),
        });
    }
    let query_norm = norm(query);
    let mut scores: Vec<(f32, usize)> = vectors
        .tools
        .iter()
        .enumerate()
        .filter(|(i, _)| !request.is_skipped(*i))
        .map(|(i, (vector, norm))| (cosine(query, query_norm, vector, *norm), i))
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
    Ok(if weak {
        SearchResult::guesses(found)
    } else {
        SearchResult::matches(found)
    })
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
    fn search<'a>(&'a self, request: &'a SearchRequest<'a>) -> SearchFuture<'a> {
        Box::pin(async move {
            match self.rank(request).await {
                Ok(result) => result,
                Err(error) => self.lexical.rank(request).with_fell_back(error),
            }
        })
    }
}

impl fmt::Debug for EmbeddingSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmbeddingSearch")
            .field("embedder", &self.embedder.name())
            .field("cache", &self.cache)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}
