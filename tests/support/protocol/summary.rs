//! One line per state for counterexample traces: the store, each process, and the world.

use std::fmt::Write as _;

use super::state::{Known, Proc, RecovererAt, RunnerAt, State, MAX_CALLS};
use super::steps::Call;
use super::store::Phase;

impl State {
    /// The state in one line: store phase and entries; where A, B and C are; which calls took
    /// effect and how often each was compensated.
    pub fn summary(&self) -> String {
        let mut line = String::new();
        let _ = match self.store.phase {
            Phase::NotBegun => write!(line, "store: not begun"),
            Phase::Running { owner, live } => write!(
                line,
                "store: {owner:?}'s{}",
                if live { "" } else { " (expired)" }
            ),
            Phase::Finished => write!(line, "store: finished"),
        };
        for call in 0..MAX_CALLS {
            if let Some(status) = self.store.entries[call] {
                let _ = write!(line, " {}={status:?}", Call(call as u8));
            }
        }
        let _ = write!(line, "; A {}", runner(self));
        for by in Proc::RECOVERERS {
            let _ = write!(line, "; {by:?} {}", recoverer(self, by));
        }
        for call in 0..MAX_CALLS {
            let world = &self.world;
            if world.effect[call] {
                let _ = write!(line, "; {} done", Call(call as u8));
                if world.compensations[call] > 0 {
                    let _ = write!(line, ", undone x{}", world.compensations[call]);
                }
            }
        }
        line
    }
}

fn runner(state: &State) -> String {
    let runner = &state.runner;
    let mut text = match runner.at {
        RunnerAt::Start => "not started".to_owned(),
        RunnerAt::Idle { next } => format!("between calls (next {})", Call(next)),
        RunnerAt::Calling { call, effected } => {
            format!(
                "calling {}{}",
                Call(call),
                if effected { " (took effect)" } else { "" }
            )
        }
        RunnerAt::Renewing { call } => format!("about to renew for {}", Call(call)),
        RunnerAt::Compensating { call, .. } => format!("compensating {}", Call(call)),
        RunnerAt::Finishing => "about to finish".to_owned(),
        RunnerAt::Ended => "ended".to_owned(),
        RunnerAt::Released => "released the run".to_owned(),
        RunnerAt::Crashed => "crashed".to_owned(),
    };
    if runner.lost {
        text.push_str(", lost");
    }
    let local: Vec<String> = (0..MAX_CALLS)
        .filter(|&call| runner.known[call] == Known::LocalOnly)
        .map(|call| Call(call as u8).to_string())
        .collect();
    if !local.is_empty() {
        let _ = write!(text, ", local-only {}", local.join(" "));
    }
    text
}

fn recoverer(state: &State, by: Proc) -> String {
    match state.recoverer(by).at {
        RecovererAt::Dormant => "not started".to_owned(),
        RecovererAt::Idle => "idle".to_owned(),
        RecovererAt::Renewing { call } => format!("about to renew for {}", Call(call)),
        RecovererAt::Compensating { call, .. } => format!("compensating {}", Call(call)),
        RecovererAt::Finishing => "about to finish".to_owned(),
        RecovererAt::Crashed => "crashed".to_owned(),
    }
}
