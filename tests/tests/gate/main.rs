//! Stage `gate`: pausing a reply for a person's decisions, and the tamper-proof paused state.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod decisions;
mod replay;
