//! Crash tests of resuming: a child process pauses a transfer on a durable store and is killed
//! with SIGKILL (or not); fresh processes resume it. The transfer is a synced line of a ledger
//! file, so the tests see that it runs once, after the decision, whoever resumes.
//!
//! Each scenario runs on SQLite and on PostgreSQL (`TOOL_SDK_POSTGRES_URL`, started by
//! `./scripts/test.sh`).

use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::saga::{ledger, Process};

const SAGA_CHILD: &str = env!("CARGO_BIN_EXE_saga_child");

async fn paused_then_killed_then_resumed(backend: Backend) {
    let place = place(backend, "paused_killed").await;
    let mut pausing = Process::start(SAGA_CHILD, &place, "pause", Some("after_pause"), None);
    let paused = pausing.until(&["PAUSED"]);
    let run = paused.trim_start_matches("PAUSED ").to_owned();
    pausing.kill_at_crash_point();
    assert!(
        ledger(&place).is_empty(),
        "nothing runs before the decision"
    );

    // Recovery leaves a paused run alone: it waits for a person, not for a rollback.
    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=0 undone=0");

    let report = Process::start(SAGA_CHILD, &place, "resume", None, Some(&run)).finish();
    assert_eq!(report, "DONE answered=true");
    assert_eq!(ledger(&place), ["transfer 500"]);

    // Used up: a second resume is refused and runs nothing.
    let report = Process::start(SAGA_CHILD, &place, "resume", None, Some(&run)).finish();
    assert!(report.starts_with("REFUSED"), "{report}");
    assert_eq!(ledger(&place), ["transfer 500"]);
}

async fn two_processes_resume_at_once(backend: Backend) {
    let place = place(backend, "resume_race").await;
    let paused = Process::start(SAGA_CHILD, &place, "pause", None, None).finish();
    let run = paused.trim_start_matches("PAUSED ").to_owned();
    let racers: Vec<Process> = (0..2)
        .map(|_| Process::start(SAGA_CHILD, &place, "resume", None, Some(&run)))
        .collect();
    let mut reports: Vec<String> = racers.into_iter().map(Process::finish).collect();
    reports.sort();
    assert_eq!(reports[0], "DONE answered=true", "{reports:?}");
    assert!(reports[1].starts_with("REFUSED"), "{reports:?}");
    assert!(reports[1].contains("decided already"), "{reports:?}");
    assert_eq!(ledger(&place), ["transfer 500"]);
}

tool_sdk_tests::on_both_stores!(
    #[tokio::test]
    paused_then_killed_then_resumed,
    two_processes_resume_at_once,
);
