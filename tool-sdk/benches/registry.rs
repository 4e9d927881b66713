//! A registry of many tools: listing their definitions for a request, and what each costs in
//! memory.
//!
//! - `registry/list_1000`: the definitions of 1,000 registered tools, in order (each schema is
//!   computed once, at registration; listing lends them).
//! - `registry/encode_1000_openai`: the same, lowered to the OpenAI dialect and written as the
//!   `tools` of a Chat Completions request, i.e. what sending them all on every request costs.
//! - `registry/unknown_misspelled_1000`: a call to a misspelled name among 1,000 tools, answered
//!   with the closest names (the edit-distance search).
//! - `registry/unknown_1mib_name_1000`: a call to an unknown name of 1 MiB from a hostile
//!   model: refused by the name rule before any lookup or search.
//!
//! Run with `cargo bench -p tool-sdk --bench registry`; memory per tool is the `memory` bench.

#[path = "support/poll.rs"]
mod poll;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Map, Value};
use tool_sdk::define::ToolDefinition;
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::{register::DynamicTool, ToolRegistry};

/// Tools with schemas of realistic size: three parameters, one optional enum.
fn registry(count: usize) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for n in 0..count {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, such as Lisbon."},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "Days ahead."},
                "units": {"type": "string", "enum": ["metric", "imperial"], "description": "Units."}
            },
            "required": ["city", "days"]
        });
        let tool = DynamicTool::new(
            format!("forecast_{n}"),
            format!("Gets the weather forecast for a city, variant {n}."),
            schema,
            |arguments| async move { arguments.to_string() },
        )
        .expect("a valid tool");
        registry.register(tool).expect("a unique name");
    }
    registry
}

/// `definition` as a Chat Completions `tools` entry, its lowered `parameters` moved in (not
/// copied through `json!`, which would serialize them into a new value).
fn chat_completions_tool(definition: &ToolDefinition, parameters: Value) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), Value::String(definition.name.clone()));
    function.insert(
        "description".into(),
        Value::String(definition.description.clone()),
    );
    function.insert("parameters".into(), parameters);
    let mut tool = Map::new();
    tool.insert("type".into(), Value::String("function".into()));
    tool.insert("function".into(), Value::Object(function));
    Value::Object(tool)
}

fn bench(c: &mut Criterion) {
    let tools = registry(1_000);

    let mut group = c.benchmark_group("registry");
    group.bench_function("list_1000", |b| {
        b.iter(|| tools.definitions().collect::<Vec<_>>())
    });
    group.bench_function("encode_1000_openai", |b| {
        b.iter(|| {
            let encoded: Vec<Value> = tools
                .definitions()
                .map(|definition| {
                    let parameters =
                        lower(&definition.name, &definition.parameters, Dialect::OpenAi)
                            .expect("lowers");
                    chat_completions_tool(definition, parameters)
                })
                .collect();
            serde_json::to_string(&encoded).expect("encodes")
        })
    });
    group.bench_function("unknown_misspelled_1000", |b| {
        b.iter(|| poll::run(tools.call("forcast_500", "{}")).expect_err("unknown"))
    });
    let hostile = "forecast_".repeat((1 << 20) / 9 + 1);
    group.bench_function("unknown_1mib_name_1000", |b| {
        b.iter(|| poll::run(tools.call(&hostile, "{}")).expect_err("unknown"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
