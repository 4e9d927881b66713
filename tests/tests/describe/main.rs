//! Stage `describe`: the schema dialects held against the providers' references, the schema
//! snapshots and lock, and tool search on real data.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod compile_time;
mod dialect_per_crate;
mod dialects;
mod embedder;
mod everyday_types;
mod oracles;
mod schema_snapshots;
mod search;
mod table;
mod vectors;
