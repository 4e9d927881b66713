//! The PostgreSQL [`VectorStore`]: tool search's vectors shared by every replica.

use super::{backend, PostgresStore};
use crate::describe::search::{VectorFuture, VectorStore};
use crate::store::vector_bytes::{from_bytes, to_bytes};

impl VectorStore for PostgresStore {
    fn load_vectors<'a>(
        &'a self,
        embedder: &'a str,
        keys: &'a [String],
    ) -> VectorFuture<'a, Vec<Option<Vec<f32>>>> {
        Box::pin(async move {
            let rows = self
                .connection()
                .await
                .map_err(backend)?
                .query(
                    "SELECT content, vector FROM tool_sdk_tool_vectors
                     WHERE embedder = $1 AND content = ANY($2)",
                    &[&embedder, &keys],
                )
                .await
                .map_err(backend)?;
            let mut kept = std::collections::HashMap::with_capacity(rows.len());
            for row in rows {
                let key: String = row.try_get(0).map_err(backend)?;
                let bytes: Vec<u8> = row.try_get(1).map_err(backend)?;
                kept.insert(key, bytes);
            }
            // Torn bytes are no vector: embedded again.
            Ok(keys
                .iter()
                .map(|key| kept.get(key).and_then(|bytes| from_bytes(bytes)))
                .collect())
        })
    }

    fn save_vectors<'a>(
        &'a self,
        embedder: &'a str,
        vectors: &'a [(String, Vec<f32>)],
    ) -> VectorFuture<'a, ()> {
        Box::pin(async move {
            let keys: Vec<&str> = vectors.iter().map(|(key, _)| key.as_str()).collect();
            let bytes: Vec<Vec<u8>> = vectors.iter().map(|(_, v)| to_bytes(v)).collect();
            self.connection()
                .await
                .map_err(backend)?
                .execute(
                    "INSERT INTO tool_sdk_tool_vectors (embedder, content, vector)
                     SELECT $1, * FROM UNNEST($2::text[], $3::bytea[])
                     ON CONFLICT (embedder, content) DO NOTHING",
                    &[&embedder, &keys, &bytes],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }
}
