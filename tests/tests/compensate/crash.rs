//! Crash tests of recovery: a child process runs a booking saga on a durable store and is
//! killed with SIGKILL at a chosen point; a fresh process recovers (resuming a paused run after
//! a crash is checked in `run_resume_crash.rs`). Every side effect is a synced line of a ledger
//! file, so the tests see exactly what happened: each booking undone exactly once, newest
//! first, and nothing run twice.
//!
//! Each scenario runs on SQLite and on PostgreSQL (`TOOL_SDK_POSTGRES_URL`, started by
//! `./scripts/test.sh`).

use tool_sdk_tests::durable::{place, Backend};
use tool_sdk_tests::saga::{ledger, Process};

const SAGA_CHILD: &str = env!("CARGO_BIN_EXE_saga_child");

/// The ledger's lines with idempotency keys cut off (`cancel car KEY` → `cancel car`).
fn effects(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|line| line.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect()
}

fn key_of(lines: &[String], prefix: &str) -> String {
    let matching: Vec<&String> = lines.iter().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(matching.len(), 1, "one `{prefix}` line in {lines:?}");
    matching[0]
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_owned()
}

async fn killed_after_the_first_tool(backend: Backend) {
    let place = place(backend, "after_first_tool").await;
    Process::start(SAGA_CHILD, &place, "saga", Some("after_first_tool"), None)
        .kill_at_crash_point();
    assert_eq!(effects(&ledger(&place)), ["book flight"]);

    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=1 undone=1");
    assert_eq!(effects(&ledger(&place)), ["book flight", "cancel flight"]);

    // A second recovery finds nothing left.
    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=0 undone=0");
    assert_eq!(ledger(&place).len(), 2);
}

async fn killed_in_the_middle_of_a_round(backend: Backend) {
    let place = place(backend, "mid_round").await;
    Process::start(SAGA_CHILD, &place, "saga", Some("mid_round"), None).kill_at_crash_point();
    assert_eq!(effects(&ledger(&place)), ["book flight", "book car"]);

    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=1 undone=2");
    // Newest first; the hotel never booked, so nothing undoes it.
    assert_eq!(
        effects(&ledger(&place)),
        ["book flight", "book car", "cancel car", "cancel flight"]
    );
}

async fn killed_during_compensation(backend: Backend) {
    let place = place(backend, "during_compensation").await;
    Process::start(
        SAGA_CHILD,
        &place,
        "saga",
        Some("during_compensation"),
        None,
    )
    .kill_at_crash_point();
    // The tour failed; the hotel's rollback was recorded; the car's was done, not recorded.
    assert_eq!(
        effects(&ledger(&place)),
        [
            "book flight",
            "book car",
            "book hotel",
            "fail tour",
            "cancel hotel",
            "cancel car"
        ]
    );
    let before = ledger(&place);
    let car_key = key_of(&before, "cancel car");

    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=1 undone=2");
    let after = ledger(&place);
    // The car's rollback ran again with the same key (and did nothing); the hotel's did not.
    assert_eq!(
        effects(&after[before.len()..]),
        ["repeat car", "cancel flight"]
    );
    assert_eq!(key_of(&after, "repeat car"), car_key);
    assert!(
        car_key.contains(":2:c"),
        "key {car_key} names run, round and call"
    );
}

async fn killed_during_recovery(backend: Backend) {
    let place = place(backend, "during_recovery").await;
    Process::start(SAGA_CHILD, &place, "saga", Some("mid_round"), None).kill_at_crash_point();
    // The recovery itself dies in its second rollback, after the effect, before the record.
    Process::start(SAGA_CHILD, &place, "recover", Some("during_recovery"), None)
        .kill_at_crash_point();
    let before = ledger(&place);
    assert_eq!(
        effects(&before),
        ["book flight", "book car", "cancel car", "cancel flight"]
    );
    let flight_key = key_of(&before, "cancel flight");

    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=1 undone=1");
    let after = ledger(&place);
    assert_eq!(effects(&after[before.len()..]), ["repeat flight"]);
    assert_eq!(key_of(&after, "repeat flight"), flight_key);

    let report = Process::start(SAGA_CHILD, &place, "recover", None, None).finish();
    assert_eq!(report, "DONE runs=0 undone=0");
}

tool_sdk_tests::on_both_stores!(
    #[tokio::test]
    killed_after_the_first_tool,
    killed_in_the_middle_of_a_round,
    killed_during_compensation,
    killed_during_recovery,
);
