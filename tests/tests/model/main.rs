//! Stage `model`: each HTTP model against a real server of its API, every body checked against the
//! provider's own types.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod anthropic;
mod fixtures;
mod gemini;
mod openai;
