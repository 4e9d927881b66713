//! Stage `model`: each HTTP model against a real server of its API, every body checked against the
//! provider's own types: one contract of scenarios every provider keeps (`contract.rs`), and
//! what is each API's own (`openai.rs`, `anthropic.rs`, `gemini.rs`).
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod anthropic;
mod contract;
mod fixtures;
mod gemini;
mod openai;
mod servers;
