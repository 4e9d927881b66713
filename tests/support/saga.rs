//! A child process running the booking saga of `tests/bin/saga_child.rs` on a durable store
//! (or recovering it, or pausing and resuming a transfer), for the crash tests, and the ledger
//! of side effects it keeps.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};

use crate::durable::Place;

/// A running saga child.
#[derive(Debug)]
pub struct Process {
    child: Child,
    stdout: BufReader<ChildStdout>,
}

impl Process {
    /// Starts `program` (the tests' `CARGO_BIN_EXE_saga_child`) in `mode` on the store at
    /// `place`, to stop at `crash_at` if given, on the paused run `run` if given.
    pub fn start(
        program: &str,
        place: &Place,
        mode: &str,
        crash_at: Option<&str>,
        run: Option<&str>,
    ) -> Self {
        let mut command = Command::new(program);
        command
            .arg(&place.spec)
            .arg(place.dir.join("ledger"))
            .arg(mode)
            .args(run)
            .env_remove("CRASH_AT")
            .stdout(Stdio::piped());
        if let Some(point) = crash_at {
            command.env("CRASH_AT", point);
        }
        let mut child = command.spawn().expect("start the saga child");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Self { child, stdout }
    }

    /// The first line starting with one of `markers`.
    pub fn until(&mut self, markers: &[&str]) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let read = self.stdout.read_line(&mut line).expect("read the child");
            assert!(
                read > 0,
                "the child ended without printing any of {markers:?}"
            );
            if markers.iter().any(|m| line.starts_with(m)) {
                return line.trim_end().to_owned();
            }
        }
    }

    /// Runs to the crash point, then kills the process with SIGKILL.
    pub fn kill_at_crash_point(mut self) {
        let line = self.until(&["CRASHPOINT", "DONE", "FAILED", "REFUSED"]);
        assert_eq!(
            line, "CRASHPOINT",
            "the child should have stopped at its crash point"
        );
        self.child.kill().expect("SIGKILL the child");
        self.child.wait().expect("reap the child");
    }

    /// Runs to the end; gives its last report line.
    pub fn finish(mut self) -> String {
        let line = self.until(&["DONE", "FAILED", "REFUSED", "PAUSED"]);
        let status = self.child.wait().expect("wait for the child");
        assert!(
            status.success(),
            "the child failed: {status:?} after {line}"
        );
        line
    }
}

/// The side effects the children logged so far, one line each.
pub fn ledger(place: &Place) -> Vec<String> {
    std::fs::read_to_string(place.dir.join("ledger"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}
