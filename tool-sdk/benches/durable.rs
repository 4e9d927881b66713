//! What durability costs a run: one round with one compensable call (recorded before the loop
//! goes on), then the answer, on each store.
//!
//! - `durable/round_no_store`: the loop alone.
//! - `durable/round_in_memory`: begin, record, finish in memory.
//! - `durable/round_sqlite`: the same in a SQLite file (`synchronous = FULL`: each write waits
//!   for the disk).
//! - `durable/round_sqlite_sealed`: the same, the record entry sealed at rest (an HMAC-SHA256
//!   written with it).
//!
//! Run with `cargo bench -p tool-sdk --bench durable`.

use std::future::IntoFuture as _;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_sdk::gate::Sealer;
use tool_sdk::run::ToolLoop;
use tool_sdk::store::{InMemoryRunStore, SqliteStore};
use tool_sdk::{
    model::{ChatRequest, ChatResponse, ModelFuture},
    tool, AssistantMessage, ChatModel, Message, ToolCall, ToolRegistry,
};

/// Books a room.
#[tool(compensate = cancel)]
fn book(room: u32) -> u32 {
    room
}

fn cancel(_args: BookArgs, _booking: u32) {}

/// Asks for one booking, then answers.
struct Instant;

impl ChatModel for Instant {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let reply = match request.messages.last() {
            Some(Message::User { .. }) => AssistantMessage::with_tool_calls(vec![ToolCall::new(
                "c1",
                "book",
                r#"{"room": 7}"#,
            )]),
            _ => AssistantMessage {
                text: Some("booked".into()),
                tool_calls: vec![],
            },
        };
        Box::pin(async move { Ok(ChatResponse::new(reply)) })
    }
}

fn agent() -> ToolLoop {
    let mut registry = ToolRegistry::new();
    registry.register(BookTool).expect("registers");
    ToolLoop::new(Instant, registry)
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = std::env::temp_dir().join(format!("tool-sdk-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");

    let row_seal = Sealer::new(&[7u8; 32]).expect("a key").row_seal();
    let mut group = c.benchmark_group("durable");
    let variants = [
        ("round_no_store", agent()),
        (
            "round_in_memory",
            agent().with_store(Arc::new(InMemoryRunStore::new())),
        ),
        (
            "round_sqlite",
            agent().with_store(Arc::new(
                SqliteStore::open(dir.join("runs.db")).expect("opens"),
            )),
        ),
        (
            "round_sqlite_sealed",
            agent().with_store(Arc::new(
                SqliteStore::open(dir.join("sealed.db"))
                    .expect("opens")
                    .with_row_seal(row_seal),
            )),
        ),
    ];
    for (name, agent) in &variants {
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut conversation = vec![Message::user("book room 7")];
                runtime.block_on(agent.run(&mut conversation).into_future())
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
