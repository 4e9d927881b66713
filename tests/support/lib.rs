//! Shared helpers of the integration tests.

pub mod add;
pub mod bfcl;
pub mod booking;
pub mod corpus;
pub mod durable;
pub mod embeddings;
pub mod layout;
pub mod mcp;
pub mod media;
pub mod oracles;
pub mod plain_http;
pub mod protocol;
pub mod replies;
pub mod saga;
pub mod saga_over_http;
pub mod shapes;
pub mod stray;
pub mod ui_expect;
