//! The instructions one loop round executes (a call to a trivial tool against an instant
//! model, then the answer), for counting under valgrind, where the figure does not move with
//! the load of the machine the way time does.
//!
//! `ROUND_MODE=none` runs the runtime alone, `round` a whole run of one round, `compensable` a
//! round whose call is compensable (no store), `durable` the same in a loop with an in-memory
//! run store, `gated` the round of `round` with `add` needing a decision, allowed by an
//! in-process approver, `N` times
//! (`ROUND_RUNS`, default 1,000), on a current-thread runtime (`ROUND_RUNTIME=multi`: a
//! multi-threaded one with one worker, as the `durable` criterion bench uses); the cost of one
//! round is the difference over `N`:
//!
//! ```text
//! cargo bench -p tool-sdk --bench round_instructions --no-run
//! for mode in none round; do
//!   ROUND_MODE=$mode ROUND_RUNS=20000 valgrind --tool=cachegrind --cache-sim=no \
//!     target/release/deps/round_instructions-* 2>&1 | grep 'I *refs'
//! done
//! ```

use std::future::IntoFuture as _;
use std::hint::black_box;

use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::store::PausedTurn;
use tool_sdk::{
    model::{ChatRequest, ChatResponse, ModelFuture},
    tool, AssistantMessage, ChatModel, Message, ToolCall, ToolLoop, ToolRegistry,
};

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Books a room; cancelled when a later step fails.
#[tool(compensate = cancel)]
fn book(room: u32) -> u32 {
    room
}

fn cancel(_args: BookArgs, _booking: u32) {}

/// Answers with `calls` when the last message is the user's, and with text once tools answered.
struct Instant {
    calls: Vec<ToolCall>,
}

impl ChatModel for Instant {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let reply = match request.messages.last() {
            Some(Message::User { .. }) => AssistantMessage::with_tool_calls(self.calls.clone()),
            _ => AssistantMessage {
                text: Some("done".into()),
                tool_calls: vec![],
            },
        };
        Box::pin(async move { Ok(ChatResponse::new(reply)) })
    }
}

fn main() {
    let mode = std::env::var("ROUND_MODE").unwrap_or_else(|_| "round".to_owned());
    let runs: usize = std::env::var("ROUND_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000);
    let runtime = if std::env::var("ROUND_RUNTIME").is_ok_and(|r| r == "multi") {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
    }
    .expect("a runtime");
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).expect("registers");
    let model = Instant {
        calls: vec![ToolCall::new("c1", "add", r#"{"a": 1, "b": 2}"#)],
    };
    let agent = ToolLoop::new(model, registry);
    let mut booking = ToolRegistry::new();
    booking.register(BookTool).expect("registers");
    let model = Instant {
        calls: vec![ToolCall::new("c1", "book", r#"{"room": 7}"#)],
    };
    let compensable = ToolLoop::new(model, booking);
    let mut booking = ToolRegistry::new();
    booking.register(BookTool).expect("registers");
    let model = Instant {
        calls: vec![ToolCall::new("c1", "book", r#"{"room": 7}"#)],
    };
    let durable = ToolLoop::new(model, booking)
        .with_store(std::sync::Arc::new(tool_sdk::store::InMemoryRunStore::new()));
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).expect("registers");
    let model = Instant {
        calls: vec![ToolCall::new("c1", "add", r#"{"a": 1, "b": 2}"#)],
    };
    let allow_all = |paused: &PausedTurn| paused.decide().allow_rest().build();
    let gated = ToolLoop::new(model, registry)
        .with_gate(Gate::new(
            ConfirmationPolicy::new().with_confirmed_tool("add"),
        ))
        .with_approver(allow_all);
    for _ in 0..runs {
        let mut conversation = vec![Message::user("1 + 2?")];
        match mode.as_str() {
            "none" => {
                runtime.block_on(async { black_box(&mut conversation) });
            }
            "compensable" => {
                let _ =
                    black_box(runtime.block_on(compensable.run(&mut conversation).into_future()));
            }
            "durable" => {
                let _ = black_box(runtime.block_on(durable.run(&mut conversation).into_future()));
            }
            "gated" => {
                let _ = black_box(runtime.block_on(gated.run(&mut conversation).into_future()));
            }
            _ => {
                let _ = black_box(runtime.block_on(agent.run(&mut conversation).into_future()));
            }
        }
    }
}
