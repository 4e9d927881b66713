//! The SQLite [`VectorStore`]: tool search's vectors in the store's file.

use rusqlite::{params, OptionalExtension};

use super::{backend, SqliteStore};
use crate::describe::search::{VectorFuture, VectorStore};
use crate::store::vector_bytes::{from_bytes, to_bytes};

impl VectorStore for SqliteStore {
    fn load_vectors<'a>(
        &'a self,
        embedder: &'a str,
        keys: &'a [String],
    ) -> VectorFuture<'a, Vec<Option<Vec<f32>>>> {
        let (embedder, keys) = (embedder.to_owned(), keys.to_vec());
        let load = self.with(move |connection, _| {
            let mut select = connection
                .prepare_cached(
                    "SELECT vector FROM tool_sdk_tool_vectors WHERE embedder = ?1 AND content = ?2",
                )
                .map_err(backend)?;
            keys.iter()
                .map(|key| {
                    let bytes: Option<Vec<u8>> = select
                        .query_row(params![embedder, key], |row| row.get(0))
                        .optional()
                        .map_err(backend)?;
                    // Torn bytes are no vector: embedded again.
                    Ok(bytes.and_then(|bytes| from_bytes(&bytes)))
                })
                .collect()
        });
        Box::pin(async move { load.await.map_err(Into::into) })
    }

    fn save_vectors<'a>(
        &'a self,
        embedder: &'a str,
        vectors: &'a [(String, Vec<f32>)],
    ) -> VectorFuture<'a, ()> {
        let embedder = embedder.to_owned();
        let rows: Vec<(String, Vec<u8>)> = vectors
            .iter()
            .map(|(key, vector)| (key.clone(), to_bytes(vector)))
            .collect();
        let save = self.with(move |connection, _| {
            let tx = connection.transaction().map_err(backend)?;
            {
                let mut insert = tx
                    .prepare_cached(
                        "INSERT INTO tool_sdk_tool_vectors (embedder, content, vector)
                         VALUES (?1, ?2, ?3) ON CONFLICT (embedder, content) DO NOTHING",
                    )
                    .map_err(backend)?;
                for (key, bytes) in &rows {
                    insert
                        .execute(params![embedder, key, bytes])
                        .map_err(backend)?;
                }
            }
            tx.commit().map_err(backend)
        });
        Box::pin(async move { save.await.map_err(Into::into) })
    }
}
