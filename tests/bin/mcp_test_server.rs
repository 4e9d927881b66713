//! An MCP server for the protocol tests of `tests/tests/mcp/`: a slow tool (for a client that
//! leaves in the middle of a call), a failing one, a panicking one, one that a confirmation
//! policy gates for large amounts, typed ones (an object, a list, and one whose output
//! strays from its schema), one that reports progress and one that waits to be cancelled.
//! Serves over stdio.
//!
//! Options: `--state-ttl SECONDS`, how long the request state of an input request stays valid
//! (15 minutes by default); `--state-key KEY sqlite:PATH` (or `postgres:CONFIG`), the key
//! replicas seal request states with and the store where they redeem them; `--name NAME`, the
//! name the server introduces itself with (`mcp-test-server` by default); `--refuse`, calls
//! that need a decision are refused instead of asked about; `--deadline-ms N`, how long the
//! user has to answer (the policy's deadline; 15 minutes by default); `--task-store
//! sqlite:PATH` or `--task-store postgres:CONFIG`, where tasks are kept (in memory by default);
//! `--task-lease-ms N`, the lease of a working task (30 s by default); `--task-ttl-ms N`, a
//! task's time to live (an hour by default).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use tool_sdk::define::{Json, Progress};
use tool_sdk::gate::{ConfirmationPolicy, Sealer};
use tool_sdk::mcp::{McpDecisions, McpServer, McpTasks};
use tool_sdk::run::CancellationToken;
use tool_sdk::store::{InMemoryReplayGuard, PostgresStore, ReplayGuard, SqliteStore, TaskStore};
use tool_sdk::{tool, ToolRegistry};
use tool_sdk_tests::stray::StrayReading;

/// Waits, then says how long it waited.
#[tool(read_only)]
async fn slow(
    /// How long to wait, in milliseconds.
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("waited {millis} ms")
}

/// Divides a by b.
#[tool(read_only)]
fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(a / b)
}

/// Always panics.
#[tool]
fn boom() -> String {
    panic!("boom")
}

/// How many transfers ran.
static TRANSFERS: AtomicUsize = AtomicUsize::new(0);

/// Sends money.
#[tool]
fn transfer(to: String, amount: u64) -> String {
    TRANSFERS.fetch_add(1, Ordering::SeqCst);
    format!("sent {amount} to {to}")
}

/// Says how many transfers ran in this process.
#[tool(read_only)]
fn transfers_made() -> usize {
    TRANSFERS.load(Ordering::SeqCst)
}

/// A forecast.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    /// Degrees Celsius.
    celsius: f64,
}

/// Forecasts the weather of a city.
#[tool(read_only)]
fn forecast(city: String) -> Json<Forecast> {
    Json(Forecast {
        city,
        celsius: 21.5,
    })
}

/// The first primes.
#[tool(read_only)]
fn primes(count: usize) -> Vec<u32> {
    [2, 3, 5, 7, 11, 13].into_iter().take(count).collect()
}

/// Reads the thermometer.
#[tool(read_only)]
fn thermometer() -> Json<StrayReading> {
    Json(StrayReading { celsius: 19.0 })
}

/// Counts down, reporting each step.
#[tool(read_only)]
async fn countdown(from: u32, #[context] progress: Progress) -> String {
    for done in 1..=from {
        let left = format!("{} left", from - done);
        progress.report(f64::from(done), Some(f64::from(from)), Some(&left));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    "liftoff".into()
}

/// How many calls were cancelled.
static CANCELLED: AtomicUsize = AtomicUsize::new(0);

/// Waits until the call is cancelled, a minute at most.
#[tool(read_only)]
async fn wait_for_cancel(#[context] cancel: CancellationToken) -> String {
    tokio::select! {
        () = cancel.cancelled() => {
            CANCELLED.fetch_add(1, Ordering::SeqCst);
            "cancelled".into()
        }
        () = tokio::time::sleep(Duration::from_secs(60)) => "never cancelled".into(),
    }
}

/// Writes a report, a page at a time; long enough to be served as a task.
#[tool(read_only, long_running)]
async fn write_report(pages: u32, #[context] progress: Progress) -> String {
    for page in 1..=pages {
        tokio::time::sleep(Duration::from_millis(20)).await;
        progress.report(f64::from(page), Some(f64::from(pages)), Some("writing"));
    }
    format!("a report of {pages} pages")
}

/// Waits until the call is cancelled, a minute at most, and then stops with an error; served
/// as a task.
#[tool(read_only, long_running)]
async fn long_wait(#[context] cancel: CancellationToken) -> Result<String, String> {
    match wait_for_cancel(cancel).await.as_str() {
        "cancelled" => Err("stopped: the call was cancelled".into()),
        other => Ok(other.into()),
    }
}

/// Works for a moment without watching for a cancel, and finishes; served as a task.
#[tool(read_only, long_running)]
async fn finish_anyway() -> String {
    tokio::time::sleep(Duration::from_millis(300)).await;
    "finished anyway".into()
}

/// Says how many calls were cancelled in this process.
#[tool(read_only)]
fn cancelled_calls() -> usize {
    CANCELLED.load(Ordering::SeqCst)
}

/// What the command line asks for.
struct Options {
    name: String,
    decisions: McpDecisions,
    tasks: McpTasks,
    /// How long the host's user has to answer, if the policy gives a deadline.
    deadline: Option<Duration>,
}

/// Reads the command line; see the options above.
async fn options() -> Result<Options, Box<dyn std::error::Error>> {
    let mut options = Options {
        name: "mcp-test-server".to_owned(),
        decisions: McpDecisions::ask(),
        tasks: McpTasks::in_memory(),
        deadline: None,
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(option) = arguments.next() {
        let mut value = || arguments.next().ok_or(format!("`{option}` needs a value"));
        match option.as_str() {
            "--refuse" => options.decisions = McpDecisions::refuse(),
            "--name" => options.name = value()?,
            "--state-ttl" => {
                let ttl = Duration::from_secs(value()?.parse()?);
                let sealer = Sealer::new(b"the test server's request-state key, 32+ bytes")?
                    .with_replay_guard(Arc::new(InMemoryReplayGuard::default()));
                options.decisions = McpDecisions::ask().with_sealer(sealer.with_ttl(ttl));
            }
            "--state-key" => {
                // As the replicas of `McpDecisions`' documentation are set up: one key, and
                // the store they share, where each request state is redeemed.
                let key = value()?;
                let shared: Arc<dyn ReplayGuard> = match value()?.split_once(':') {
                    Some(("sqlite", path)) => Arc::new(SqliteStore::open(path)?),
                    Some(("postgres", config)) => Arc::new(PostgresStore::connect(config).await?),
                    _ => return Err("`--state-key` needs a key and a store".into()),
                };
                let sealer = Sealer::new(key.as_bytes())?.with_replay_guard(shared);
                options.decisions = McpDecisions::ask().with_sealer(sealer);
            }
            "--task-store" => {
                let place = value()?;
                let store: Arc<dyn TaskStore> = match place.split_once(':') {
                    Some(("sqlite", path)) => Arc::new(SqliteStore::open(path)?),
                    Some(("postgres", config)) => Arc::new(PostgresStore::connect(config).await?),
                    _ => return Err(format!("unknown task store `{place}`").into()),
                };
                options.tasks = McpTasks::stored_in(store);
            }
            "--deadline-ms" => {
                options.deadline = Some(Duration::from_millis(value()?.parse()?));
            }
            "--task-lease-ms" => {
                let lease = Duration::from_millis(value()?.parse()?);
                options.tasks = options.tasks.with_lease(lease);
            }
            "--task-ttl-ms" => {
                let ttl = Duration::from_millis(value()?.parse()?);
                options.tasks = options.tasks.with_ttl(ttl);
            }
            other => return Err(format!("unknown option `{other}`").into()),
        }
    }
    Ok(options)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry
        .register(SlowTool)?
        .register(DivideTool)?
        .register(BoomTool)?
        .register(TransferTool)?
        .register(TransfersMadeTool)?
        .register(ForecastTool)?
        .register(PrimesTool)?
        .register(ThermometerTool)?
        .register(CountdownTool)?
        .register(WaitForCancelTool)?
        .register(CancelledCallsTool)?
        .register(WriteReportTool)?
        .register(LongWaitTool)?
        .register(FinishAnywayTool)?;
    let policy = ConfirmationPolicy::new().with_confirm_when(|call| {
        serde_json::from_str::<serde_json::Value>(&call.arguments)
            .ok()
            .and_then(|arguments| arguments["amount"].as_u64())
            .is_some_and(|amount| amount > 1_000)
    });
    let options = options().await?;
    let policy = match options.deadline {
        Some(deadline) => policy.with_deadline(deadline),
        None => policy,
    };
    McpServer::builder(options.name, "9.9.9")
        .with_confirmation_policy(policy)
        .with_decisions(options.decisions)
        .with_tasks(options.tasks)
        .build(registry)?
        .serve_stdio()
        .await?;
    eprintln!("mcp-test-server: the client closed the session");
    Ok(())
}
