//! A process that runs a booking saga (or recovers one, or pauses and resumes a transfer) on
//! a durable store, for the crash tests: they kill it with SIGKILL at chosen points and check
//! what a fresh process recovers.
//!
//! `saga_child STORE LEDGER MODE [RUN_ID]`
//! - STORE: `sqlite:PATH` or `postgres:CONFIG`
//! - LEDGER: a file where every side effect is appended as one line (`book car`,
//!   `cancel car KEY`, `repeat car KEY`, `transfer 500`), synced before the tool returns
//! - MODE: `saga`, `recover`, `pause`, `resume`
//! - `CRASH_AT` (environment): where to stop and wait to be killed — `after_first_tool`,
//!   `mid_round`, `during_compensation`, `during_recovery`, `after_pause`. At that point the
//!   process prints `CRASHPOINT` and waits forever.
//!
//! The saga: round 1 books a flight; round 2 books a car and a hotel at once; round 3 books a
//! tour, which fails, so everything is rolled back, newest first.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tool_sdk::store::{
    Compensated, Orphan, Orphans, PauseId, PausedRun, PostgresStore, RecordEntry, RunId, RunStore,
    SqliteStore, StoreFuture,
};
use tool_sdk::{
    define::{Confirm, ToolDefinition, ToolFuture, ToolOptions},
    AssistantMessage, Message, ScriptedModel, Tool, ToolCall, ToolContext, ToolError, ToolOutput,
    ToolRegistry,
};
use tool_sdk::{
    run::{Concurrency, LoopOptions, LoopStatus, ToolLoop},
    store::PausedTurn,
};

fn crash_at() -> String {
    std::env::var("CRASH_AT").unwrap_or_default()
}

/// Announces the crash point and waits to be killed.
async fn crash_point() -> ! {
    println!("CRASHPOINT");
    let _ = std::io::stdout().flush();
    loop {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
}

/// Side effects, one synced line each, so a kill loses none that happened.
#[derive(Clone)]
struct Ledger(Arc<std::path::PathBuf>);

impl Ledger {
    fn append(&self, line: &str) {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&*self.0)
            .expect("open the ledger");
        writeln!(file, "{line}").expect("write the ledger");
        file.sync_all().expect("sync the ledger");
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&*self.0)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// Counts what the store recorded, so a tool can wait until an earlier success is durable.
struct Counting {
    inner: Arc<dyn RunStore>,
    recorded: Arc<AtomicUsize>,
    compensated: Arc<AtomicUsize>,
}

impl RunStore for Counting {
    fn begin<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        self.inner.begin(run, lease)
    }
    fn renew<'a>(&'a self, run: &'a RunId, lease: Duration) -> StoreFuture<'a, ()> {
        self.inner.renew(run, lease)
    }
    fn release<'a>(&'a self, run: &'a RunId, after: Duration) -> StoreFuture<'a, ()> {
        self.inner.release(run, after)
    }
    fn record<'a>(&'a self, run: &'a RunId, entry: &'a RecordEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.record(run, entry).await?;
            self.recorded.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
    }
    fn compensated<'a>(
        &'a self,
        run: &'a RunId,
        key: &'a str,
        outcome: &'a Compensated,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.compensated(run, key, outcome).await?;
            self.compensated.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
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

async fn wait_until(counter: &AtomicUsize, at_least: usize) {
    while counter.load(Ordering::SeqCst) < at_least {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A compensable booking whose side effects go to the ledger; its compensating action skips
/// an idempotency key it has done already.
struct Booking {
    what: &'static str,
    definition: ToolDefinition,
    ledger: Ledger,
    recorded: Arc<AtomicUsize>,
    compensated: Arc<AtomicUsize>,
}

impl Booking {
    fn new(what: &'static str, ledger: &Ledger, store: &Counting) -> Self {
        let definition = ToolDefinition::new(
            format!("book_{what}"),
            format!("Books a {what}."),
            json!({"type": "object", "properties": {}}),
        )
        .with_options(ToolOptions::new().with_compensable(true));
        Self {
            what,
            definition,
            ledger: ledger.clone(),
            recorded: Arc::clone(&store.recorded),
            compensated: Arc::clone(&store.compensated),
        }
    }
}

impl Tool for Booking {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, _arguments: &'a str, _context: ToolContext<'a>) -> ToolFuture<'a> {
        ToolFuture::boxed(async move {
            let crash = crash_at();
            match (self.what, crash.as_str()) {
                // Round 2 starts only once round 1's flight is recorded; stop before booking.
                ("car" | "hotel", "after_first_tool") => {
                    wait_until(&self.recorded, 1).await;
                    crash_point().await
                }
                // The car is booked and recorded while the hotel is still running.
                ("hotel", "mid_round") => {
                    wait_until(&self.recorded, 2).await;
                    crash_point().await
                }
                // Let the car finish first, so rollback order is known: hotel, car, flight.
                ("hotel", _) => wait_until(&self.recorded, 2).await,
                ("tour", _) => {
                    self.ledger.append("fail tour");
                    return Err(ToolError::failed("book_tour", "no tours left"));
                }
                _ => {}
            }
            self.ledger.append(&format!("book {}", self.what));
            Ok(ToolOutput::text(format!("{}-booked", self.what)))
        })
    }

    fn compensate<'a>(
        &'a self,
        _arguments: &'a str,
        _output: &'a ToolOutput,
        context: ToolContext<'a>,
    ) -> Option<ToolFuture<'a>> {
        Some(ToolFuture::boxed(async move {
            let key = context.call_id().unwrap_or_default().to_owned();
            // The same key as the task-local one: both name this entry.
            assert_eq!(
                tool_sdk::compensate::idempotency_key().as_deref(),
                Some(&*key)
            );
            let done = format!("cancel {} {key}", self.what);
            if self.ledger.lines().contains(&done) {
                self.ledger.append(&format!("repeat {} {key}", self.what));
                return Ok(ToolOutput::text("already cancelled"));
            }
            self.ledger.append(&done);
            let crash = crash_at();
            // Stop in the second rollback, after its effect and before it is recorded.
            if (crash == "during_compensation" || crash == "during_recovery")
                && self.compensated.load(Ordering::SeqCst) == 1
            {
                crash_point().await
            }
            Ok(ToolOutput::text("cancelled"))
        }))
    }
}

/// A money transfer that needs a person's decision.
struct Transfer {
    definition: ToolDefinition,
    ledger: Ledger,
}

impl Tool for Transfer {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: &'a str, _context: ToolContext<'a>) -> ToolFuture<'a> {
        let amount = serde_json::from_str::<serde_json::Value>(arguments)
            .ok()
            .and_then(|v| v["amount"].as_u64())
            .unwrap_or_default();
        self.ledger.append(&format!("transfer {amount}"));
        ToolFuture::ready(Ok(ToolOutput::text("sent")))
    }
}

async fn open_store(spec: &str) -> Arc<dyn RunStore> {
    if let Some(path) = spec.strip_prefix("sqlite:") {
        Arc::new(SqliteStore::open(path).expect("open the SQLite store"))
    } else if let Some(config) = spec.strip_prefix("postgres:") {
        Arc::new(
            PostgresStore::connect(config)
                .await
                .expect("connect to PostgreSQL"),
        )
    } else {
        panic!("unknown store {spec}")
    }
}

fn calls(calls: &[(&str, &str, &str)]) -> AssistantMessage {
    AssistantMessage::with_tool_calls(
        calls
            .iter()
            .map(|(id, name, arguments)| ToolCall::new(*id, *name, *arguments))
            .collect(),
    )
}

fn answer(text: &str) -> AssistantMessage {
    AssistantMessage {
        text: Some(text.into()),
        tool_calls: vec![],
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, store, ledger, mode, rest @ ..] = args.as_slice() else {
        panic!("usage: saga_child STORE LEDGER MODE [RUN_ID]");
    };
    let ledger = Ledger(Arc::new(ledger.into()));
    let shared = open_store(store).await;
    let store = Counting {
        inner: Arc::clone(&shared),
        recorded: Arc::default(),
        compensated: Arc::default(),
    };
    let mut registry = ToolRegistry::new();
    for what in ["flight", "car", "hotel", "tour"] {
        registry
            .register(Booking::new(what, &ledger, &store))
            .expect("register");
    }
    registry
        .register(Transfer {
            definition: ToolDefinition::new(
                "transfer",
                "Sends money.",
                json!({"type": "object", "properties": {"amount": {"type": "integer"}}}),
            )
            .with_options(ToolOptions::new().with_confirm(Confirm::Always)),
            ledger: ledger.clone(),
        })
        .expect("register");
    let model = ScriptedModel::new(match mode.as_str() {
        "saga" => vec![
            calls(&[("f", "book_flight", "{}")]),
            calls(&[("c", "book_car", "{}"), ("h", "book_hotel", "{}")]),
            calls(&[("t", "book_tour", "{}")]),
            answer("unreachable: the tour fails"),
        ],
        "pause" => vec![calls(&[("x", "transfer", r#"{"amount": 500}"#)])],
        "resume" => vec![answer("sent")],
        _ => vec![],
    });
    let agent = ToolLoop::new(model, registry)
        .with_options(LoopOptions::default().with_concurrency(Concurrency::Bounded(2)))
        .with_store(Arc::new(store))
        .with_lease(Duration::from_secs(2));
    let mut conversation = vec![Message::user("go")];
    let cancel = tool_sdk::run::CancellationToken::new();
    match mode.as_str() {
        "saga" => {
            let outcome = agent.run(&mut conversation).with_cancel(&cancel).await;
            let rolled_back = matches!(outcome.status, LoopStatus::RolledBack { .. });
            println!("DONE rolled_back={rolled_back}");
        }
        "recover" => match agent.recover(Orphans::All).await {
            Ok(recovered) => {
                let undone: usize = recovered.iter().map(|r| r.compensations.len()).sum();
                println!("DONE runs={} undone={undone}", recovered.len());
            }
            Err(error) => println!("FAILED {error}"),
        },
        "pause" => {
            let outcome = agent.run(&mut conversation).with_cancel(&cancel).await;
            let LoopStatus::Paused(paused) = outcome.status else {
                panic!("expected a pause, got {:?}", outcome.status);
            };
            println!("PAUSED {}", paused.id());
            if crash_at() == "after_pause" {
                crash_point().await;
            }
        }
        "resume" => {
            let [id] = rest else {
                panic!("resume needs a run id")
            };
            let id = RunId::from_string(id.clone());
            // The person reads the paused reply and allows the transfer.
            let paused = match shared.load_paused(&id).await {
                Ok(paused) => paused,
                Err(error) => {
                    println!("REFUSED {error}");
                    return;
                }
            };
            let decisions = paused.decide().allow("x").build();
            match agent
                .resume(&mut conversation, &id, &decisions)
                .with_cancel(&cancel)
                .await
            {
                Ok(outcome) => println!(
                    "DONE answered={}",
                    matches!(outcome.status, LoopStatus::Answered(_))
                ),
                Err(error) => println!("REFUSED {error}"),
            }
        }
        other => panic!("unknown mode {other}"),
    }
}
