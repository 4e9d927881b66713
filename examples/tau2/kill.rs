//! Killed and recovered: at every golden write of every task, a process running the task is
//! killed with SIGKILL, and another process — another replica — recovers the run from the
//! loop's durable store (SQLite or PostgreSQL) with the SDK's recovery, over the database as
//! the killed process left it (its log, `log.rs`). The database must be `db.json` again,
//! each write undone exactly once.
//!
//! Two places to die, both after the write took effect in the database and its log:
//! - **after its record**: the loop's record of the call is durable (write-ahead, before the
//!   loop goes on); the recovery finds it there and compensates it;
//! - **before its record**: the loop had not recorded the call yet. The recovery cannot know
//!   of it; the database's log does. The compensation of an earlier write of the same records
//!   undoes it first (the journal keeps the order writes took effect, `undo.rs`), and the
//!   recovering process undoes, after the SDK's recovery, every write the log still holds
//!   undone, newest first. (The file serves one run at a time, so whatever it holds belongs to
//!   the run recovered.)
//!
//! A call the domain refused changed nothing and has no record: the process dies as the call
//! ends, the same at both places.
//!
//! Three programs in one: the matrix (`--kill STORE`) starts this very program as the process
//! to kill (`--kill-at INDEX`) and as the replica that recovers (`--recover`), each with the
//! store (`--store sqlite:PATH` or `--store postgres:CONFIG`) and the database's log
//! (`--file PATH`).

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tool_sdk::run::ToolLoop;
use tool_sdk::store::{
    Compensated, Orphan, Orphans, PauseId, PausedRun, PausedTurn, PostgresStore, RecordEntry,
    RunId, RunStore, SqliteStore, StoreFuture,
};
use tool_sdk::ScriptedModel;

use crate::data::Task;
use crate::oracle::{self, Durable, End, Fault};
use crate::{registry, Domain};

/// Where, around the loop's record of the write, the process dies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Point {
    /// Once the record of the call is durable.
    AfterRecord,
    /// After the write, before the loop records it.
    BeforeRecord,
}

impl Point {
    const BOTH: [Point; 2] = [Point::AfterRecord, Point::BeforeRecord];

    fn name(self) -> &'static str {
        match self {
            Point::AfterRecord => "after_record",
            Point::BeforeRecord => "before_record",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::BOTH.into_iter().find(|point| point.name() == name)
    }
}

/// What the process said as it waited to be killed.
#[derive(Debug, Serialize, Deserialize)]
struct Killed {
    /// τ²'s hash of its database.
    hash: String,
    /// The writes its journal held (those that succeeded).
    writes: usize,
}

/// What the recovering process found and did.
#[derive(Debug, Serialize, Deserialize)]
struct Recovered {
    /// τ²'s hash of the database reopened from the log, before any recovery.
    reopened: String,
    /// Runs the SDK's recovery found.
    runs: usize,
    /// The writes the journal held, reopened.
    writes: usize,
    /// Compensations the SDK's recovery ran, and those that failed.
    undone: usize,
    errors: Vec<String>,
    /// Writes the log held that no record named (so no compensation claimed)...
    unrecorded: usize,
    /// ...of which undone after the SDK's recovery (the others were undone before the
    /// earlier writes of their records, by those writes' compensations).
    swept: usize,
    /// Writes left undone at the end.
    pending: usize,
    /// Whether the database is exactly `db.json` again.
    restored: bool,
}

/// One cell of the matrix.
#[derive(Debug, Serialize)]
struct Line {
    task: String,
    /// The write's index among the task's golden actions.
    action: usize,
    tool: String,
    point: Point,
    ok: bool,
    killed: Killed,
    recovered: Recovered,
}

/// Opens the loop's store `spec`: `sqlite:PATH` or `postgres:CONFIG`.
async fn open_store(spec: &str) -> Result<Arc<dyn RunStore>, String> {
    if let Some(path) = spec.strip_prefix("sqlite:") {
        let store = SqliteStore::open(path).map_err(|error| error.to_string())?;
        Ok(Arc::new(store))
    } else if let Some(config) = spec.strip_prefix("postgres:") {
        let store = PostgresStore::connect(config)
            .await
            .map_err(|error| error.to_string())?;
        Ok(Arc::new(store))
    } else {
        Err(format!(
            "a store is sqlite:PATH or postgres:CONFIG, not {spec}"
        ))
    }
}

/// Says what the process holds, then waits to be killed.
fn wait_to_be_killed<D: Domain>(domain: &D) -> ! {
    let killed = domain.store().db_hash().and_then(|hash| {
        let (writes, _, _) = domain.store().writes()?;
        serde_json::to_string(&Killed { hash, writes }).map_err(|error| error.to_string())
    });
    match killed {
        Ok(line) => println!("KILL ME {line}"),
        Err(error) => println!("FAILED {error}"),
    }
    let _ = std::io::stdout().flush();
    // Blocking the runtime's one thread: nothing of the run goes on.
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// The run store, with the process dying around the record of one call.
struct Dying<D> {
    inner: Arc<dyn RunStore>,
    call: String,
    point: Point,
    domain: Arc<D>,
}

impl<D: Domain + Send + Sync + 'static> RunStore for Dying<D> {
    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let this = entry.call.id.as_deref() == Some(self.call.as_str());
            if this && self.point == Point::BeforeRecord {
                wait_to_be_killed(&*self.domain)
            }
            self.inner.record(run, entry).await?;
            if this {
                wait_to_be_killed(&*self.domain)
            }
            Ok(())
        })
    }
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        self.inner.begin(run, lease)
    }
    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        self.inner.renew(run, lease)
    }
    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()> {
        self.inner.release(run, after)
    }
    fn compensated<'a>(
        &'a self,
        run: &'a RunId,
        key: &'a str,
        outcome: &'a Compensated,
    ) -> StoreFuture<'a, ()> {
        self.inner.compensated(run, key, outcome)
    }
    fn pause<'a>(&'a self, run: &'a RunId, paused: &'a PausedTurn) -> StoreFuture<'a, ()> {
        self.inner.pause(run, paused)
    }
    fn load_paused<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, PausedTurn> {
        self.inner.load_paused(run)
    }
    fn list_paused(&self, limit: usize) -> StoreFuture<'_, Vec<PausedRun>> {
        self.inner.list_paused(limit)
    }
    fn take_paused<'a>(
        &'a self,
        run: &'a RunId,
        pause: &'a PauseId,
        lease: Duration,
    ) -> StoreFuture<'a, PausedTurn> {
        self.inner.take_paused(run, pause, lease)
    }
    fn finish<'a>(&'a self, run: &'a RunId) -> StoreFuture<'a, ()> {
        self.inner.finish(run)
    }
    fn claim_orphan<'a>(
        &'a self,
        which: Orphans,
        lease: Duration,
        skip: &'a [RunId],
    ) -> StoreFuture<'a, Option<Orphan>> {
        self.inner.claim_orphan(which, lease, skip)
    }
}

/// The process to kill: runs `task` with its run in `store` and its database logged to
/// `file`, and waits to be killed at `point` around the golden write at `index`.
pub(crate) async fn run_until_killed<D: Domain + Send + Sync + 'static>(
    db: D::Db,
    task: &Task,
    index: usize,
    point: Point,
    store: &str,
    file: &Path,
) -> Result<(), String> {
    let domain = Arc::new(D::open(db, file)?);
    let call = format!("call_{}", index + 1);
    let after_tool = {
        let (domain, call) = (Arc::clone(&domain), call.clone());
        // A refused call has no record: die as it ends.
        move |made: &tool_sdk::ToolCall, result: &tool_sdk::define::ToolResult| {
            if result.is_err() && made.id.as_deref() == Some(call.as_str()) {
                wait_to_be_killed(&*domain)
            }
        }
    };
    let store = Arc::new(Dying {
        inner: open_store(store).await?,
        call,
        point,
        domain: Arc::clone(&domain),
    });
    let durable = Durable {
        store,
        after_tool: Arc::new(after_tool),
    };
    oracle::replay(
        task,
        registry(&domain)?,
        End::Answers,
        Fault::None,
        Some(durable),
    )
    .await?;
    Err(format!(
        "task {}: the run ended before action {index}",
        task.id
    ))
}

/// The replica that recovers: reopens the database from `file`, recovers every run of
/// `store` with the SDK's recovery, then undoes what the log holds and no record named.
pub(crate) async fn recover<D: Domain + Send + Sync + 'static>(
    db: D::Db,
    store: &str,
    file: &Path,
) -> Result<(), String> {
    let domain = Arc::new(D::open(db.clone(), file)?);
    let reopened = domain.store().db_hash()?;
    let (writes, _, _) = domain.store().writes()?;
    let agent = ToolLoop::new(ScriptedModel::new([]), registry(&domain)?)
        .with_store(open_store(store).await?);
    let runs = agent
        .recover(Orphans::All)
        .await
        .map_err(|error| error.to_string())?;
    let reports = || runs.iter().flat_map(|run| &run.compensations);
    let errors = reports()
        .filter_map(|report| {
            let error = report.result.as_ref().err()?;
            Some(format!("{}: {error}", report.name))
        })
        .collect();
    let undone = reports().filter(|report| report.result.is_ok()).count();
    let swept = domain.store().undo_unrecorded()?;
    let (_, pending, unrecorded) = domain.store().writes()?;
    let recovered = Recovered {
        reopened,
        runs: runs.len(),
        writes,
        undone,
        errors,
        unrecorded,
        swept,
        pending,
        restored: domain.store().holds(&db)?,
    };
    let line = serde_json::to_string(&recovered).map_err(|error| error.to_string())?;
    println!("RECOVERED {line}");
    Ok(())
}

/// A fresh directory for one cell's files.
struct Scratch(PathBuf);

impl Scratch {
    fn new(cell: usize) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("tau2-kill-{}-{cell}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|error| format!("{}: {error}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// This program, for one cell: the domain, the data and the task, and `flags`.
fn this_program(domain: &str, data: &Path, flags: &[&str]) -> Result<Command, String> {
    let program = std::env::current_exe().map_err(|error| error.to_string())?;
    let mut command = Command::new(program);
    command.arg(domain).arg("--data").arg(data).args(flags);
    Ok(command)
}

/// The first line of `child`'s output that starts with `marker`, the rest of it parsed.
fn report<T: for<'de> Deserialize<'de>>(
    child: &mut std::process::Child,
    marker: &str,
) -> Result<T, String> {
    let stdout = child.stdout.take().ok_or("no output to read")?;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|error| error.to_string())?;
        if let Some(rest) = line.strip_prefix(marker) {
            return serde_json::from_str(rest.trim()).map_err(|error| error.to_string());
        }
        if let Some(error) = line.strip_prefix("FAILED ") {
            return Err(error.to_owned());
        }
    }
    Err(format!("the process ended without saying {marker}"))
}

/// One cell: kill the task's run at `point` around the write at `index`, recover it in
/// another process, and judge.
fn cell(
    args: (&str, &Path),
    store: &str,
    task: &str,
    index: usize,
    point: Point,
    scratch: &Scratch,
) -> Result<(Killed, Recovered), String> {
    let (domain, data) = args;
    let file = scratch.0.join("domain.sqlite");
    let store = match store {
        "sqlite" => format!("sqlite:{}", scratch.0.join("runs.sqlite").display()),
        other => other.to_owned(),
    };
    let index = index.to_string();
    let mut child = this_program(domain, data, &["--task", task, "--kill-at", &index])?
        .args(["--point", point.name(), "--store", &store, "--file"])
        .arg(&file)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| error.to_string())?;
    let killed = report::<Killed>(&mut child, "KILL ME");
    // SIGKILL: nothing of the process runs after this.
    let _ = child.kill();
    let _ = child.wait();
    let killed = killed?;
    let mut replica = this_program(domain, data, &["--recover", "--store", &store, "--file"])?
        .arg(&file)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| error.to_string())?;
    let recovered = report::<Recovered>(&mut replica, "RECOVERED");
    let status = replica.wait().map_err(|error| error.to_string())?;
    if !status.success() {
        return Err(format!("the recovering process failed: {status}"));
    }
    Ok((killed, recovered?))
}

/// Whether a cell came out as it must: the log reopened the database the killed process held;
/// one run recovered; every write it made undone exactly once (by the SDK's recovery, or,
/// killed before the loop recorded the last one, that one by the log); `db.json` again.
fn judge(point: Point, killed: &Killed, recovered: &Recovered) -> bool {
    let unrecorded = match point {
        Point::AfterRecord => recovered.unrecorded == 0,
        Point::BeforeRecord => recovered.unrecorded <= 1,
    };
    recovered.reopened == killed.hash
        && recovered.runs == 1
        && recovered.writes == killed.writes
        && recovered.errors.is_empty()
        && recovered.undone + recovered.unrecorded == killed.writes
        && unrecorded
        && recovered.pending == 0
        && recovered.restored
}

/// The matrix: every golden write of `tasks` (those whose tool `is_write` says writes), at
/// both points, with the run in `store` (`sqlite`: a fresh file per cell; or
/// `postgres:CONFIG`, shared by every cell, each recovery leaving it empty).
pub(crate) fn matrix(
    domain: &str,
    data: &Path,
    store: &str,
    tasks: &[&Task],
    is_write: impl Fn(&str) -> bool,
    json: bool,
) -> Result<(), String> {
    let mut table: std::collections::BTreeMap<String, [usize; 3]> = Default::default();
    let mut cells = 0;
    for task in tasks {
        let actions = task.actions();
        for index in (0..actions.len()).filter(|&index| is_write(&actions[index].name)) {
            let tool = actions[index].name.clone();
            let row = table.entry(tool.clone()).or_default();
            row[0] += 1;
            for (column, point) in Point::BOTH.into_iter().enumerate() {
                cells += 1;
                let scratch = Scratch::new(cells)?;
                let (killed, recovered) =
                    cell((domain, data), store, &task.id, index, point, &scratch)
                        .map_err(|error| format!("task {} action {index}: {error}", task.id))?;
                let ok = judge(point, &killed, &recovered);
                row[column + 1] += usize::from(ok);
                let line = Line {
                    task: task.id.clone(),
                    action: index,
                    tool: tool.clone(),
                    point,
                    ok,
                    killed,
                    recovered,
                };
                if json {
                    let text = serde_json::to_string(&line).map_err(|error| error.to_string())?;
                    println!("{text}");
                } else if !ok {
                    println!("task {} action {index} ({tool}): {line:?}", task.id);
                }
            }
        }
    }
    if !json {
        println!(
            "{:<32} {:>9} {:>14} {:>15}",
            "write", "positions", "after record", "before record"
        );
        for (tool, [positions, after, before]) in &table {
            println!("{tool:<32} {positions:>9} {after:>14} {before:>15}");
        }
    }
    Ok(())
}
