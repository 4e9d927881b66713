//! Tool vectors kept in the run store: a second index over the same store, as a restart or
//! another replica makes, embeds nothing; a changed tool alone is embedded again. On SQLite
//! and on PostgreSQL (`TOOL_SDK_POSTGRES_URL`, started by `scripts/test.sh`).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::json;
use tool_sdk::define::ToolDefinition;
use tool_sdk::describe::search::{
    EmbedFuture, Embedder, HybridSearch, SearchRequest, SearchStrategy, TextKind,
};
use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::embeddings::{Counted, Tally};

/// How weathery, flighty and moneyed a text is.
struct Words;

impl Embedder for Words {
    fn name(&self) -> &str {
        "words v1"
    }

    fn embed<'a>(&'a self, texts: &'a [&'a str], _kind: TextKind) -> EmbedFuture<'a> {
        let vectors = texts
            .iter()
            .map(|text| {
                let text = text.to_lowercase();
                ["weather", "flight", "money"]
                    .iter()
                    .map(|w| text.matches(w).count() as f32 + 0.1)
                    .collect()
            })
            .collect();
        Box::pin(std::future::ready(Ok(vectors)))
    }
}

fn catalogue(money: &str) -> Vec<ToolDefinition> {
    let schema = json!({"type": "object", "properties": {}});
    (0..40)
        .map(|i| {
            let description = match i % 3 {
                0 => format!("Weather report number {i}."),
                1 => format!("Flight booking number {i}."),
                _ if i == 2 => money.to_owned(),
                _ => format!("Money transfer number {i}."),
            };
            ToolDefinition::new(format!("tool_{i}"), description, schema.clone())
        })
        .collect()
}

fn documents(tally: &Tally) -> usize {
    tally.documents.load(Ordering::SeqCst)
}

async fn embedded_once(backend: Backend) {
    let place = place(backend, "tool_vectors").await;
    let tools = catalogue("Money exchange.");
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let request = SearchRequest::new("weather today", &refs, 3);

    let (embedder, first) = Counted::new(Words);
    let search =
        HybridSearch::from_embedder(embedder).with_store(place.open().await.vector_store());
    let result = search.search(&request).await;
    assert_eq!(result.fell_back, None);
    assert_eq!(documents(&first), 40, "every tool embedded once");
    let _ = search.search(&request).await;
    assert_eq!(documents(&first), 40, "and never again in this process");

    // A restart, or another replica: a new index over the same store.
    let (embedder, second) = Counted::new(Words);
    let search =
        HybridSearch::from_embedder(embedder).with_store(place.open().await.vector_store());
    let again = search.search(&request).await;
    assert_eq!(again.found, result.found);
    assert_eq!(
        documents(&second),
        0,
        "{backend:?}: the store had every vector"
    );
    assert_eq!(
        second.calls.load(Ordering::SeqCst),
        1,
        "{backend:?}: the query's vector alone was asked for"
    );

    // One tool changed under its name: it alone is embedded again.
    let changed = catalogue("Money exchange, with fees.");
    let refs: Vec<&ToolDefinition> = changed.iter().collect();
    let _ = search.search(&SearchRequest::new("money", &refs, 3)).await;
    assert_eq!(documents(&second), 1, "{backend:?}: the changed tool alone");

    // Another embedder's vectors are never taken for this one's.
    struct Other;
    impl Embedder for Other {
        fn name(&self) -> &str {
            "words v2"
        }
        fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a> {
            Words.embed(texts, kind)
        }
    }
    let (embedder, other) = Counted::new(Other);
    let search =
        HybridSearch::from_embedder(embedder).with_store(place.open().await.vector_store());
    let _ = search.search(&request).await;
    assert_eq!(
        documents(&other),
        40,
        "{backend:?}: a new name, new vectors"
    );
}

#[tokio::test]
async fn sqlite_keeps_tool_vectors_across_indexes() {
    embedded_once(Backend::Sqlite).await;
}

#[tokio::test]
async fn postgres_keeps_tool_vectors_across_indexes() {
    embedded_once(Backend::Postgres).await;
}

#[tokio::test]
async fn a_store_that_fails_costs_only_time() {
    use tool_sdk::describe::search::{VectorFuture, VectorStore};

    struct Broken;
    impl VectorStore for Broken {
        fn load_vectors<'a>(
            &'a self,
            _: &'a str,
            _: &'a [String],
        ) -> VectorFuture<'a, Vec<Option<Vec<f32>>>> {
            Box::pin(std::future::ready(Err("disk gone".into())))
        }
        fn save_vectors<'a>(
            &'a self,
            _: &'a str,
            _: &'a [(String, Vec<f32>)],
        ) -> VectorFuture<'a, ()> {
            Box::pin(std::future::ready(Err("disk gone".into())))
        }
    }
    let tools = catalogue("Money exchange.");
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let (embedder, tally) = Counted::new(Words);
    let search = HybridSearch::from_embedder(embedder).with_store(Arc::new(Broken));
    let result = search.search(&SearchRequest::new("flight", &refs, 3)).await;
    assert_eq!(result.fell_back, None);
    assert_eq!(result.found.len(), 3);
    assert_eq!(documents(&tally), 40);
}

/// The vectors that came before a search's timeout are kept: the next search asks only for
/// the others.
#[tokio::test]
async fn vectors_that_came_in_time_are_kept() {
    use std::sync::atomic::{AtomicBool, AtomicUsize};
    use std::time::Duration;

    use tool_sdk::describe::search::EmbedError;

    /// Answers at once, but hangs on its second call while `hang` is set.
    struct Stalls {
        hang: AtomicBool,
        calls: AtomicUsize,
    }
    impl Embedder for Stalls {
        fn name(&self) -> &str {
            "stalls"
        }
        fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a> {
            Box::pin(async move {
                let call = self.calls.fetch_add(1, Ordering::SeqCst);
                if call == 1 && self.hang.load(Ordering::SeqCst) {
                    std::future::pending::<()>().await;
                }
                Words.embed(texts, kind).await
            })
        }
    }

    let schema = json!({"type": "object", "properties": {}});
    let tools: Vec<ToolDefinition> = (0..300)
        .map(|i| ToolDefinition::new(format!("tool_{i}"), format!("Weather {i}."), schema.clone()))
        .collect();
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let request = SearchRequest::new("weather", &refs, 3);
    let stalls = Arc::new(Stalls {
        hang: AtomicBool::new(true),
        calls: AtomicUsize::new(0),
    });
    let (embedder, tally) = Counted::new(Arc::clone(&stalls));
    let search = HybridSearch::from_embedder(embedder).with_timeout(Duration::from_millis(200));
    let result = search.search(&request).await;
    assert_eq!(
        result.fell_back,
        Some(EmbedError::TimedOut(Duration::from_millis(200)))
    );
    // Tools are embedded 128 to a call: the first call's came, the second hung (counted as
    // asked).
    assert_eq!(documents(&tally), 256);
    stalls.hang.store(false, Ordering::SeqCst);
    let result = search.search(&request).await;
    assert_eq!(result.fell_back, None);
    // The 128 that came are kept: the hung ones and the last 44 are asked for, no more.
    assert_eq!(documents(&tally), 256 + 172, "only what was not kept");
}
