//! Stage `store`: the rules every run store keeps (in memory, SQLite, PostgreSQL), rows sealed at
//! rest, and PostgreSQL's connections.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod contract;
mod postgres_pool;
mod sealed;
mod traits;
