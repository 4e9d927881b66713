//! Cost of gating a 16-call reply: keys, policy, sealing the paused turn, and opening it again.
//!
//! Run with `cargo bench -p tool-sdk --bench gate`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_sdk::{
    gate::{Gate, Sealer},
    model::tool_call_keys,
};
use tool_sdk::{tool, AssistantMessage, ToolCall, ToolRegistry};

/// Moves money.
#[tool(confirm = large)]
fn transfer(to: String, amount: u64) -> String {
    format!("{amount} to {to}")
}

fn large(_to: &String, amount: &u64) -> bool {
    *amount > 1_000
}

fn reply() -> AssistantMessage {
    AssistantMessage::with_tool_calls(
        (0..16)
            .map(|i| {
                let amount = if i % 4 == 0 { 5_000 } else { 50 };
                ToolCall::new(
                    format!("call_{i}"),
                    "transfer",
                    format!(r#"{{"to": "ACCOUNT-{i}", "amount": {amount}}}"#),
                )
            })
            .collect(),
    )
}

fn gate(c: &mut Criterion) {
    let mut registry = ToolRegistry::new();
    registry.register(TransferTool).expect("registers");
    let offered: Vec<String> = registry.names().map(str::to_owned).collect();
    let gate = Gate::default();
    let sealer = Sealer::new(&[42u8; 32]).expect("a 32-byte key");
    let reply = reply();

    c.bench_function("gate_16_calls/keys", |b| {
        b.iter(|| tool_call_keys(black_box(&reply)))
    });
    c.bench_function("gate_16_calls/keys_policy_seal_open", |b| {
        b.iter(|| {
            let paused = gate
                .check(&registry, &offered, black_box(&reply))
                .expect("four calls wait");
            let token = sealer.seal(&paused).expect("seals");
            sealer.open(&token).expect("opens")
        })
    });
}

criterion_group!(benches, gate);
criterion_main!(benches);
