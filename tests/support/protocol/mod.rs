//! A model of the run store's record-and-lease protocol, checked by exhaustive exploration.
//!
//! The model does not call the library. It restates, step for step, what the runner (A), the
//! recovering process (B) and the store do — each store step is one
//! [`RunStore`](tool_sdk::store::RunStore) call — and lets the environment crash a process,
//! expire the owner's lease, and time a compensation out, at any point. C is B restarted: a
//! fresh recovering owner that starts once B crashed and never crashes itself, so that every
//! end state has a live recoverer that ran to quiescence.
//!
//! [`explore`] visits every state reachable within the bounds of a [`Model`], breadth first over
//! a hashed set, and checks every [`Property`] in each; a violation comes back with the shortest
//! trace that reaches it.

mod explore;
mod model;
mod properties;
mod recoverer;
mod runner;
mod state;
mod steps;
mod store;
mod summary;
mod world;

pub use explore::{explore, Counterexample, Exploration};
pub use model::{Model, Variant};
pub use properties::Property;
pub use state::{
    Gap, Known, Proc, Recoverer, RecovererAt, Runner, RunnerAt, State, World, MAX_CALLS,
};
pub use steps::Step;
pub use store::{Lost, Phase, Status, Store};
