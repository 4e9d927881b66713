//! The loop's own cost, and what concurrency buys.
//!
//! - `loop/round_overhead`: one round (a call to a trivial tool, then the answer) against a
//!   zero-latency model; everything measured is the loop's bookkeeping.
//! - `loop/gated_round`: the same round with `add` needing a decision, allowed by an in-process
//!   approver: the pause, the decision checked and the resume are what it adds.
//! - `loop/32_slow_tools_concurrent`: one reply of 32 calls to a tool that sleeps 20 ms, run
//!   with `Concurrency::Bounded(32)`; about the time of one call when concurrency works.
//!
//! Run with `cargo bench -p tool-sdk --bench run`.

use std::future::IntoFuture as _;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::run::{Concurrency, LoopOptions, ToolLoop};
use tool_sdk::store::PausedTurn;
use tool_sdk::{
    model::{ChatRequest, ChatResponse, ModelFuture},
    tool, AssistantMessage, ChatModel, Message, ToolCall, ToolRegistry,
};

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Waits 20 ms.
#[tool]
async fn wait_20ms(n: u32) -> u32 {
    tokio::time::sleep(Duration::from_millis(20)).await;
    n
}

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

fn run(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");

    let mut registry = ToolRegistry::new();
    registry.register(AddTool).expect("registers");
    let model = Instant {
        calls: vec![ToolCall::new("c1", "add", r#"{"a": 1, "b": 2}"#)],
    };
    let agent = ToolLoop::new(model, registry);
    c.bench_function("loop/round_overhead", |b| {
        b.iter(|| {
            let mut conversation = vec![Message::user("1 + 2?")];
            runtime.block_on(agent.run(&mut conversation).into_future())
        })
    });

    let mut registry = ToolRegistry::new();
    registry.register(AddTool).expect("registers");
    let model = Instant {
        calls: vec![ToolCall::new("c1", "add", r#"{"a": 1, "b": 2}"#)],
    };
    let allow_all = |paused: &PausedTurn| paused.decide().allow_rest().build();
    let agent = ToolLoop::new(model, registry)
        .with_gate(Gate::new(
            ConfirmationPolicy::new().with_confirmed_tool("add"),
        ))
        .with_approver(allow_all);
    c.bench_function("loop/gated_round", |b| {
        b.iter(|| {
            let mut conversation = vec![Message::user("1 + 2?")];
            runtime.block_on(agent.run(&mut conversation).into_future())
        })
    });

    let mut registry = ToolRegistry::new();
    registry.register(Wait20msTool).expect("registers");
    let model = Instant {
        calls: (0..32)
            .map(|n| ToolCall::new(format!("c{n}"), "wait_20ms", format!(r#"{{"n": {n}}}"#)))
            .collect(),
    };
    let agent = ToolLoop::new(model, registry)
        .with_options(LoopOptions::default().with_concurrency(Concurrency::Bounded(32)));
    let mut group = c.benchmark_group("loop");
    group.sample_size(20);
    group.bench_function("32_slow_tools_concurrent", |b| {
        b.iter(|| {
            let mut conversation = vec![Message::user("wait")];
            runtime.block_on(agent.run(&mut conversation).into_future())
        })
    });
    group.finish();
}

criterion_group!(benches, run);
criterion_main!(benches);
