//! Stage `run`: the tool loop: rounds, streaming, dialects, observability, durable runs, resuming
//! and crashes, and property tests.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod budget;
mod budget_ask;
mod concurrency;
mod deadline;
mod decided_by;
mod dialects;
mod durable;
mod edited;
mod history;
mod observability;
mod properties;
mod result_limit;
mod resume;
mod resume_crash;
mod setup;
mod streaming;
mod tool_loop;
