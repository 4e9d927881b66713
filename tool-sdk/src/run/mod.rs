//! The tool-calling loop: send the conversation, run the reply's calls, append their results,
//! and repeat until the model answers without calls; with decision gating, compensation of what
//! already ran when a later step fails, and cancellation.
#![doc = include_str!("guide.md")]

mod durable;
mod events;
mod options;
mod recover;
mod round;
mod stream;
mod tools;

mod outcome;
mod tool_loop;

pub use events::LoopEvent;
pub use options::{
    Concurrency, ErrorAction, ErrorPolicy, LoopOptions, DEFAULT_DEFER_THRESHOLD, DEFAULT_MAX_ROUNDS,
};
pub use outcome::{LoopOutcome, LoopStatus};
pub use recover::RecoveredRun;
pub use tool_loop::ToolLoop;
