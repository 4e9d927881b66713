//! What a strategy over embeddings asks of an embedder: texts in, one vector each out, or a
//! classified error.

use std::fmt;
use std::future::{ready, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// What [`Embedder::embed`] returns: one vector per text, in order.
pub type EmbedFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<Vec<f32>>, EmbedError>> + Send + 'a>>;

/// What a text is to the embedder: a query, or a document searched (a tool's name and
/// description). Models trained for retrieval (E5, BGE, Nomic, Voyage, Cohere) embed the two
/// apart; the others ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextKind {
    /// What is looked for.
    Query,
    /// What is searched.
    Document,
}

/// Turns texts into vectors: an embedding model behind an HTTP API
/// ([`OpenAiEmbedder`](crate::model::openai::OpenAiEmbedder), feature `openai`), or one of the
/// application's own. A strategy keeps the vectors of tools under [`name`](Self::name), so two
/// embedders that give different vectors must have different names.
pub trait Embedder: Send + Sync {
    /// Names the vectors this embedder makes: its model and whatever changes its vectors
    /// (dimensions, input types). Vectors kept under one name are never used under another.
    fn name(&self) -> &str;

    /// One vector per text of `texts`, in order, all of one length. An embedder batches as
    /// its API allows: `texts` may be long.
    fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a>;
}

/// A shared embedder embeds: one embedder, and its connections, for several strategies.
impl<E: Embedder + ?Sized> Embedder for Arc<E> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a> {
        (**self).embed(texts, kind)
    }
}

impl fmt::Debug for dyn Embedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Embedder")
            .field("name", &self.name())
            .finish()
    }
}

/// Why texts could not be embedded. A strategy that meets one ranks that request lexically and
/// says so ([`SearchResult::fell_back`](crate::describe::search::SearchResult::fell_back)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The embedder refused the request (a 4xx other than 408 and 429: a wrong key, an unknown
    /// model, an input too long), with its message. The same request would be refused again.
    #[error("the embedder refused the request ({status}): {message}")]
    Refused {
        /// HTTP status, or 0 when there is none.
        status: u16,
        /// The embedder's message.
        message: String,
    },
    /// The embedder could not be reached, or kept failing after the retries.
    #[error("the embedder is unavailable: {0}")]
    Unavailable(String),
    /// The search's embedding took longer than the strategy allows.
    #[error("the embedder gave no answer within {0:?}")]
    TimedOut(Duration),
    /// The answer could not be read, or holds another number of vectors than texts sent.
    #[error("the embedder's answer is malformed: {0}")]
    Malformed(String),
    /// A vector's length is not the one expected: the one set, or the first vector's.
    #[error("the embedder gave a vector of {got} dimensions where {expected} were expected")]
    Dimensions {
        /// The length expected.
        expected: usize,
        /// The length given.
        got: usize,
    },
}

/// An embedder made of a function of one text, which cannot fail: what
/// [`EmbeddingSearch::new`](crate::describe::search::EmbeddingSearch::new) takes.
pub(crate) struct FnEmbedder<F>(pub(crate) F);

impl<F: Fn(&str) -> Vec<f32> + Send + Sync> Embedder for FnEmbedder<F> {
    fn name(&self) -> &str {
        "function"
    }

    fn embed<'a>(&'a self, texts: &'a [&'a str], _kind: TextKind) -> EmbedFuture<'a> {
        Box::pin(ready(Ok(texts.iter().map(|text| (self.0)(text)).collect())))
    }
}
