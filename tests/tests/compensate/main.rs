//! Stage `compensate`: rollback of what succeeded, newest first, when a later step fails or the run is
//! cancelled; bounded compensations; recovery after a crash and across replicas, model-checked.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod crash;
mod durable;
mod protocol_model;
mod takeover;
mod timeouts;
mod tool_loop;
