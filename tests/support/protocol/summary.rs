//! One line per state for counterexample traces: the store, each process, and the world.

use std::fmt::Write as _;

use super::state::{Known, Proc, RecovererAt, ResumerAt, RunnerAt, State, MAX_CALLS};
use super::steps::Call;
use super::store::Phase;

impl State {
    /// The state in one line: store phase and entries; where A, B and C are (and R1 and R2,
    /// once the run paused); which calls took effect and how often each was compensated; how
    /// often the gated call ran.
    pub fn summary(&self) -> String {
        let mut line = String::new();
        let _ = match self.store.phase {
            Phase::NotBegun => write!(line, "store: not begun"),
            Phase::Running { owner, live } => write!(
                line,
                "store: {owner:?}'s{}",
                if live { "" } else { " (expired)" }
            ),
            Phase::Paused { pause } => write!(line, "store: paused (pause {pause})"),
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
        if self.world.pauses > 0 {
            for by in Proc::RESUMERS {
                let _ = write!(line, "; {by:?} {}", resumer(self, by));
            }
        }
        for call in 0..MAX_CALLS {
            let world = &self.world;
            if world.effect[call] {
                let _ = write!(line, "; {} done", Call(call as u8));
                match world.compensations[call] {
                    0 => {}
                    1 => line.push_str(", undone"),
                    _ => line.push_str(", undone twice or more"),
                }
            }
        }
        if self.world.gated_runs > 0 {
            let _ = write!(line, "; gated call ran x{}", self.world.gated_runs);
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
        RunnerAt::Paused => "paused the run".to_owned(),
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
        RecovererAt::Reclaiming => "lost the run, claims again".to_owned(),
        RecovererAt::Renewing { call } => format!("about to renew for {}", Call(call)),
        RecovererAt::Compensating { call, .. } => format!("compensating {}", Call(call)),
        RecovererAt::Finishing => "about to finish".to_owned(),
        RecovererAt::Crashed => "crashed".to_owned(),
    }
}

fn resumer(state: &State, by: Proc) -> &'static str {
    match state.resumer(by) {
        ResumerAt::Waiting => "not sent",
        ResumerAt::Loaded => "read the paused turn",
        ResumerAt::Calling => "took the run",
        ResumerAt::Continuing => "ran the gated call",
        ResumerAt::Done => "returned",
        ResumerAt::Crashed => "crashed",
    }
}
