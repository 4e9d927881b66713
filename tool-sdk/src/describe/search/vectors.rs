//! Tools' vectors, kept by what was embedded: in memory, and in a [`VectorStore`] when one is
//! set, so a restart or another replica embeds nothing it already has.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

use crate::describe::search::{EmbedError, Embedder, TextKind};

/// Why a [`VectorStore`] failed: the store's own error.
pub type VectorStoreError = Box<dyn std::error::Error + Send + Sync>;

/// What a [`VectorStore`]'s methods return.
pub type VectorFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, VectorStoreError>> + Send + 'a>>;

/// Where tools' vectors outlive a process: the run stores
/// ([`SqliteStore`](crate::store::SqliteStore), [`PostgresStore`](crate::store::PostgresStore))
/// keep them in a table of their own. A vector is keyed by the embedder's
/// [`name`](Embedder::name) and a hash of the text embedded, so a tool whose text changed is
/// embedded again, and one that did not is embedded once for every process sharing the store.
///
/// A store that fails costs only time: the vectors are embedded instead, and the failure is
/// logged (`tracing`, warning).
pub trait VectorStore: Send + Sync {
    /// The vectors kept under `embedder` for each of `keys`, in order; `None` where none is.
    fn load_vectors<'a>(
        &'a self,
        embedder: &'a str,
        keys: &'a [String],
    ) -> VectorFuture<'a, Vec<Option<Vec<f32>>>>;

    /// Keeps `vectors` (key, vector) under `embedder`; a key kept already keeps its vector.
    fn save_vectors<'a>(
        &'a self,
        embedder: &'a str,
        vectors: &'a [(String, Vec<f32>)],
    ) -> VectorFuture<'a, ()>;
}

impl fmt::Debug for dyn VectorStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("VectorStore")
    }
}

/// Texts embedded per call of the embedder: each call's vectors are kept as soon as they come,
/// so a search cut short by its timeout still leaves them for the next.
const CHUNK: usize = 128;

/// The key of a text's vector: its SHA-256, in hex.
pub(crate) fn content_key(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Tools' vectors by content key, in memory and in the store.
#[derive(Default)]
pub(crate) struct VectorCache {
    memory: Mutex<HashMap<String, Arc<[f32]>>>,
    store: Option<Arc<dyn VectorStore>>,
}

impl VectorCache {
    pub(crate) fn with_store(store: Arc<dyn VectorStore>) -> Self {
        Self {
            memory: Mutex::default(),
            store: Some(store),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.memory.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// The vector of each of `texts` (documents), from memory, else the store, else `embedder`.
    pub(crate) async fn vectors(
        &self,
        embedder: &dyn Embedder,
        texts: &[String],
    ) -> Result<Vec<Arc<[f32]>>, EmbedError> {
        let keys: Vec<String> = texts.iter().map(|text| content_key(text)).collect();
        let mut found: Vec<Option<Arc<[f32]>>> = {
            let memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
            keys.iter().map(|key| memory.get(key).cloned()).collect()
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
        if !missing.is_empty() {
            if let Some(store) = &self.store {
                self.load(&**store, embedder.name(), &keys, &missing, &mut found)
                    .await;
            }
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
        for chunk in missing.chunks(CHUNK) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
            let vectors = embedder.embed(&batch, TextKind::Document).await?;
            if vectors.len() != batch.len() {
                return Err(EmbedError::Malformed(format!(
                    "{} vectors for {} texts",
                    vectors.len(),
                    batch.len()
                )));
            }
            let made: Vec<(String, Vec<f32>)> = chunk
                .iter()
                .map(|&i| keys[i].clone())
                .zip(vectors)
                .collect();
            self.keep(embedder.name(), &made).await;
            for (&i, (_, vector)) in chunk.iter().zip(made) {
                found[i] = Some(vector.into());
            }
        }
        Ok(found.into_iter().flatten().collect())
    }

    /// Fills `found` at `missing` from the store, and memory with what it had.
    async fn load(
        &self,
        store: &dyn VectorStore,
        embedder: &str,
        keys: &[String],
        missing: &[usize],
        found: &mut [Option<Arc<[f32]>>],
    ) {
        let wanted: Vec<String> = missing.iter().map(|&i| keys[i].clone()).collect();
        match store.load_vectors(embedder, &wanted).await {
            Ok(loaded) => {
                let mut memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
                for (&i, vector) in missing.iter().zip(loaded) {
                    if let Some(vector) = vector {
                        let vector: Arc<[f32]> = vector.into();
                        memory.insert(keys[i].clone(), Arc::clone(&vector));
                        found[i] = Some(vector);
                    }
                }
            }
            Err(error) => {
                tracing::warn!(%error, "tool vectors could not be read from the store; embedding them");
            }
        }
    }

    /// Keeps vectors just made, in memory and in the store.
    async fn keep(&self, embedder: &str, made: &[(String, Vec<f32>)]) {
        {
            let mut memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
            for (key, vector) in made {
                memory.insert(key.clone(), vector.as_slice().into());
            }
        }
        if let Some(store) = &self.store {
            if let Err(error) = store.save_vectors(embedder, made).await {
                tracing::warn!(%error, "tool vectors could not be written to the store");
            }
        }
    }
}

impl fmt::Debug for VectorCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VectorCache")
            .field("cached", &self.len())
            .field("store", &self.store.is_some())
            .finish()
    }
}
