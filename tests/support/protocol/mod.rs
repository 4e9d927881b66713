//! A model of the run store's record-and-lease protocol, checked by exhaustive exploration.
//!
//! The model does not call the library. It restates, step for step, what the processes and the
//! store do — each store step is one [`RunStore`](tool_sdk::store::RunStore) call — and lets
//! the environment interfere at any point. The processes:
//!
//! - A, the runner: begins the run, makes its calls, records each success, and rolls back
//!   when a call fails or the run is lost; before or between its calls it may instead pause the
//!   run on a gated call (a call that waits for a person's decision) and return.
//! - B and C, recovering processes: in recovery passes, each claims the run once its lease
//!   expired, rolls back what it recorded and finishes it. Before anything else happens, the
//!   environment decides whether C runs alongside B from the start (two replicas recovering at
//!   once) or is B restarted, started once B crashed. C never crashes, so that every end state
//!   has a live recoverer that ran to quiescence.
//! - R1 and R2, resumes holding the decisions a person made for the run's first pause. R2 is
//!   the same decisions sent again: a resume racing R1, or a retry after R1 returned. A resume
//!   takes the run, runs the gated call, and goes on with the run: the model asks for the same
//!   call again, so the run may pause again on a call with the same key and fingerprint (up to
//!   a bound), or end.
//!
//! The environment's moves are faults or ordinary events. Faults: a process crashes, or an
//! owner that keeps its lease renewed stalls long enough for it to expire. Ordinary events: a
//! compensation times out, a timed-out compensation takes effect late, and the lease of an
//! owner that no longer renews it runs out as time passes (the owner crashed or released the
//! run). A compensating action may outlast the lease: in the protocol the heartbeat renews the
//! lease during the action, so its expiry then is a stall, a fault; under
//! [`Variant::RenewOnlyBeforeAction`] it is an ordinary event.
//!
//! [`explore`] visits every state reachable within the bounds of a [`Model`], breadth first over
//! a hashed set, and checks every [`Property`] of states in each; a violation comes back with
//! the shortest trace that reaches it. Once every state is found, two liveness properties are
//! checked on the graph of reachable states:
//!
//! - [`Property::Terminates`]: with no further fault, the run reaches its end (finished,
//!   paused waiting for a person, or never begun). It fails on a state short of the end that
//!   only a fault could leave, or on a cycle of ordinary steps.
//! - [`Property::PassesEnd`]: however the faults fall, a recovery pass ends. It fails on a
//!   cycle, faults included, in which one recoverer stays in one pass and claims the run again
//!   and again.
//!
//! Only fair cycles count: every process (and time, and each pending late compensation) that
//! could take a step at every state of the cycle takes one in it; a cycle kept going only by a
//! process standing still forever is not one the system can follow. A violation comes back as
//! a lasso: a trace to a state, and the cycle back to it.

mod explore;
mod liveness;
mod model;
mod properties;
mod recoverer;
mod resumer;
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
    Gap, Known, Proc, Recoverer, RecovererAt, ResumerAt, Runner, RunnerAt, State, World, LATE_CAP,
    MAX_CALLS,
};
pub use steps::Step;
pub use store::{Decided, Lost, Phase, Status, Store};
