//! A strategy fusing the lexical ranking with an embedder's.

use std::sync::Arc;
use std::time::Duration;

use crate::define::ToolDefinition;
use crate::describe::search::{
    Bm25Search, EmbedError, Embedder, EmbeddingSearch, Language, SearchFuture, SearchRequest,
    SearchResult, SearchStrategy, VectorStore,
};

/// The rank constant of reciprocal rank fusion unless set. Chosen with
/// [`DEFAULT_SEMANTIC_WEIGHT`] on the even-numbered questions of BFCL (764 tools, an embedding
/// model of 384 dimensions: multilingual-e5-small), among 5, 10, 30 and 60 (Cormack et al.'s
/// 60) with weights 1, 0.5 and 0.25: the best recall@5 of the fused rankings there, and a
/// better recall@10 than BM25's on both halves.
pub const DEFAULT_RANK_CONSTANT: f64 = 10.0;

/// What the embedder's places weigh in the fusion unless set, BM25's weighing 1: chosen with
/// [`DEFAULT_RANK_CONSTANT`]. BM25's ranking already covers each need of a query asking for
/// several tools; one vector of the whole query blends them, so its places count for less.
pub const DEFAULT_SEMANTIC_WEIGHT: f64 = 0.5;

/// How deep each side's ranking is read: a tool ranked past this by one side gets nothing
/// from it.
const DEPTH: usize = 50;

/// [`Bm25Search`] and [`EmbeddingSearch`] together: each ranks the tools, and the rankings are
/// fused by weighted reciprocal rank fusion, a tool scoring `weight / (k + rank)` on each side
/// that matched the query (rank 1 the best; `k` is [`DEFAULT_RANK_CONSTANT`] unless set with
/// [`with_rank_constant`](Self::with_rank_constant), BM25's weight 1 and the embedder's
/// [`DEFAULT_SEMANTIC_WEIGHT`] unless set with [`with_weights`](Self::with_weights)). Words
/// the embedder misses (names, codes) still match lexically, and meanings no word shares
/// (`rain` for a weather tool) still match by embedding. A side that matched nothing (its result weak) is left out of the fusion; when
/// neither matched, the result is BM25's guesses by character trigrams, marked weak.
///
/// The embedder is an [`Embedder`] ([`from_embedder`](Self::from_embedder)), such as an
/// [`OpenAiEmbedder`](crate::model::openai::OpenAiEmbedder), or a function
/// ([`new`](Self::new)); its vectors are kept as [`EmbeddingSearch`] keeps them (in memory,
/// and in a run store set with [`with_store`](Self::with_store)). When the embedder fails or
/// is slower than the [timeout](Self::with_timeout), the request is ranked by BM25 alone and
/// the result says why ([`SearchResult::fell_back`]); the loop reports it to its observers
/// ([`LoopEvent::SearchFellBack`](crate::run::LoopEvent::SearchFellBack)), and the run goes on.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::search::{HybridSearch, SearchRequest, SearchStrategy};
/// use tool_sdk::define::ToolDefinition;
///
/// // A toy embedding: how weathery and how flighty a text is.
/// let search = HybridSearch::new(|text: &str| {
///     let text = text.to_lowercase();
///     let weather = ["weather", "rain", "sunny"].iter().filter(|w| text.contains(*w)).count();
///     let flight = ["flight", "fly", "plane"].iter().filter(|w| text.contains(*w)).count();
///     vec![weather as f32, flight as f32]
/// });
/// let schema = json!({"type": "object", "properties": {}});
/// let tools = [
///     ToolDefinition::new("get_weather", "Current weather for a city.", schema.clone()),
///     ToolDefinition::new("book_flight", "Books a flight between two airports.", schema),
/// ];
/// let refs: Vec<&ToolDefinition> = tools.iter().collect();
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// // No word in common with either tool, but the embedding knows rain is weather.
/// let result = search.search(&SearchRequest::new("will it rain in Oslo", &refs, 1)).await;
/// assert_eq!((result.found, result.weak), (vec![0], false));
/// // Words both sides match.
/// let result = search.search(&SearchRequest::new("book me a flight", &refs, 1)).await;
/// assert_eq!((result.found, result.weak), (vec![1], false));
/// // Neither side matches: BM25's guesses, marked weak.
/// let result = search.search(&SearchRequest::new("xyzzy", &refs, 1)).await;
/// assert!(result.weak);
/// # });
/// ```
#[derive(Debug)]
pub struct HybridSearch {
    lexical: Bm25Search,
    semantic: EmbeddingSearch,
    rank_constant: f64,
    /// What each side's places count for: BM25's, then the embedder's.
    weights: [f64; 2],
}

impl HybridSearch {
    /// BM25 fused with embeddings computed by `embed`, a function of one text that cannot fail.
    pub fn new(embed: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static) -> Self {
        Self::fused(EmbeddingSearch::new(embed))
    }

    /// BM25 fused with the embeddings of `embedder`, such as an
    /// [`OpenAiEmbedder`](crate::model::openai::OpenAiEmbedder).
    pub fn from_embedder(embedder: impl Embedder + 'static) -> Self {
        Self::fused(EmbeddingSearch::from_shared(Arc::new(embedder)))
    }

    fn fused(semantic: EmbeddingSearch) -> Self {
        Self {
            lexical: Bm25Search::new(),
            semantic,
            rank_constant: DEFAULT_RANK_CONSTANT,
            weights: [1.0, DEFAULT_SEMANTIC_WEIGHT],
        }
    }

    /// Keeps the tools' vectors in `store` too (see [`EmbeddingSearch::with_store`]).
    pub fn with_store(mut self, store: Arc<dyn VectorStore>) -> Self {
        self.semantic = self.semantic.with_store(store);
        self
    }

    /// How long the embedding of one search may take before the request is ranked by BM25
    /// alone (see [`EmbeddingSearch::with_timeout`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.semantic = self.semantic.with_timeout(timeout);
        self
    }

    /// Embeds the tools not embedded yet, without the search's timeout (see
    /// [`EmbeddingSearch::warm`]).
    ///
    /// # Errors
    ///
    /// The [`EmbedError`] of the embedder; the vectors made before it stay kept.
    pub async fn warm(&self, tools: &[&ToolDefinition]) -> Result<(), EmbedError> {
        self.semantic.warm(tools).await
    }

    /// Stems BM25's side in `language` (see [`Bm25Search::with_language`]); the embedder
    /// reads the texts as they are.
    pub fn with_language(mut self, language: Language) -> Self {
        self.lexical = Bm25Search::with_language(language);
        self
    }

    /// Sets reciprocal rank fusion's `k`: the larger, the less a first place outweighs a
    /// tenth. Values under 0 count as 0.
    pub fn with_rank_constant(mut self, k: f64) -> Self {
        self.rank_constant = k.max(0.0);
        self
    }

    /// Weighs each side's places in the fusion (default 1 and [`DEFAULT_SEMANTIC_WEIGHT`]): a
    /// tool scores
    /// `lexical / (k + rank)` from BM25 and `semantic / (k + rank)` from the embedder. Weights
    /// under 0, or not numbers, count as 0.
    pub fn with_weights(mut self, lexical: f64, semantic: f64) -> Self {
        let weight = |w: f64| if w.is_finite() { w.max(0.0) } else { 0.0 };
        self.weights = [weight(lexical), weight(semantic)];
        self
    }
}

impl SearchStrategy for HybridSearch {
    fn search<'a>(&'a self, request: &'a SearchRequest<'a>) -> SearchFuture<'a> {
        Box::pin(async move {
            let deep = SearchRequest {
                limit: request.limit.max(DEPTH),
                ..*request
            };
            let semantic = match self.semantic.rank(&deep).await {
                Ok(semantic) => semantic,
                // That request is BM25's alone.
                Err(error) => return self.lexical.rank(request).with_fell_back(error),
            };
            let lexical = self.lexical.rank(&deep);
            fuse_sides(
                [lexical, semantic],
                self.weights,
                request,
                self.rank_constant,
            )
        })
    }
}

/// The two sides' rankings fused, what matched on either side; BM25's guesses when neither did.
fn fuse_sides(
    sides: [SearchResult; 2],
    weights: [f64; 2],
    request: &SearchRequest<'_>,
    rank_constant: f64,
) -> SearchResult {
    let matched: Vec<(&[usize], f64)> = sides
        .iter()
        .zip(weights)
        .filter(|(side, _)| !side.weak)
        .map(|(side, weight)| (side.found.as_slice(), weight))
        .collect();
    if matched.is_empty() {
        let [lexical, _] = sides;
        let mut guesses = lexical.found;
        guesses.truncate(request.limit);
        return SearchResult::guesses(guesses);
    }
    let mut fused = fuse(&matched, rank_constant);
    fused.retain(|&tool| !request.is_skipped(tool));
    fused.truncate(request.limit);
    SearchResult::matches(fused)
}

/// Reciprocal rank fusion of `rankings` (tool indices, best first, each with its weight), best
/// first. Of tools with equal scores, the one met first reading the rankings place by place
/// (the first ranking's first, the second's first, the first's second, …) comes first.
pub(crate) fn fuse(rankings: &[(&[usize], f64)], k: f64) -> Vec<usize> {
    // Per tool met: its score and when it was met.
    let mut met: Vec<(usize, f64)> = Vec::new();
    let deepest = rankings.iter().map(|(r, _)| r.len()).max().unwrap_or(0);
    for place in 0..deepest {
        for (ranking, weight) in rankings {
            let Some(&tool) = ranking.get(place) else {
                continue;
            };
            let score = weight / (k + place as f64 + 1.0);
            match met.iter_mut().find(|(t, _)| *t == tool) {
                Some((_, total)) => *total += score,
                None => met.push((tool, score)),
            }
        }
    }
    // Stable: equal scores keep the order met.
    met.sort_by(|a, b| b.1.total_cmp(&a.1));
    met.into_iter().map(|(tool, _)| tool).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_both_sides_rank_beats_one_that_only_one_ranks_first() {
        // 7 is second on both sides (2/62), 9 third on both (2/63): each beats a first place
        // on one side only (1/61).
        assert_eq!(
            fuse(&[(&[3, 7, 9], 1.0), (&[5, 7, 9], 1.0)], 60.0),
            [7, 9, 3, 5]
        );
    }

    #[test]
    fn equal_scores_keep_the_order_met_place_by_place() {
        // 1 and 2 are first on one side each; 3 and 4 second.
        assert_eq!(fuse(&[(&[1, 3], 1.0), (&[2, 4], 1.0)], 60.0), [1, 2, 3, 4]);
        assert_eq!(fuse(&[(&[2, 4], 1.0), (&[1, 3], 1.0)], 60.0), [2, 1, 4, 3]);
    }

    #[test]
    fn one_side_empty_gives_the_other_unchanged() {
        assert_eq!(fuse(&[(&[], 1.0), (&[4, 2, 8], 1.0)], 60.0), [4, 2, 8]);
        assert_eq!(fuse(&[(&[4, 2, 8], 1.0), (&[], 1.0)], 60.0), [4, 2, 8]);
        assert!(fuse(&[(&[], 1.0), (&[], 1.0)], 60.0).is_empty());
        assert!(fuse(&[], 60.0).is_empty());
    }

    #[test]
    fn the_rank_constant_weighs_first_places() {
        // 5 is first on one side; 6 second and third. A small k favours the first place.
        let rankings: [(&[usize], f64); 2] = [(&[5, 6], 1.0), (&[1, 2, 6], 1.0)];
        assert_eq!(fuse(&rankings, 0.0)[..2], [5, 1]);
        assert_eq!(fuse(&rankings, 60.0)[0], 6);
    }

    #[test]
    fn a_heavier_side_wins_ties_of_place() {
        // 1 and 2 are first on one side each: the side weighing more puts its own first.
        assert_eq!(fuse(&[(&[1], 1.0), (&[2], 0.5)], 10.0), [1, 2]);
        assert_eq!(fuse(&[(&[1], 0.5), (&[2], 1.0)], 10.0), [2, 1]);
        // Weighing nothing, a side orders only what the other does not.
        assert_eq!(fuse(&[(&[1, 2], 1.0), (&[2, 3], 0.0)], 10.0), [1, 2, 3]);
    }
}
