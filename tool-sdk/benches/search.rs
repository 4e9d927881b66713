//! What the built-in tool search costs the loop.
//!
//! - `search/two_searches_1000_deferred`: one run over 1,000 deferred tools in which the model
//!   calls `search_tools` twice, then answers; nearly all of it is the two searches (the
//!   second searches what the first left deferred).
//!
//! Run with `cargo bench -p tool-sdk --bench search`.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::future::IntoFuture as _;
use tool_sdk::describe::search::SEARCH_TOOL_NAME;
use tool_sdk::run::ToolLoop;
use tool_sdk::{
    define::{Defer, ToolOptions},
    model::{ChatRequest, ChatResponse, ModelFuture},
    register::DynamicTool,
    AssistantMessage, ChatModel, Message, ToolCall, ToolRegistry,
};

const VERBS: [&str; 10] = [
    "create", "delete", "list", "update", "fetch", "archive", "export", "import", "rename", "share",
];
const NOUNS: [&str; 20] = [
    "invoice",
    "order",
    "customer",
    "ticket",
    "repository",
    "branch",
    "file",
    "folder",
    "event",
    "calendar",
    "message",
    "channel",
    "payment",
    "refund",
    "shipment",
    "product",
    "review",
    "report",
    "contract",
    "budget",
];
const PLACES: [&str; 5] = ["billing", "shop", "helpdesk", "git", "workspace"];

/// 1,000 deferred tools with distinct names and descriptions of realistic length.
fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for (n, ((verb, noun), place)) in VERBS
        .iter()
        .flat_map(|v| NOUNS.iter().map(move |n| (v, n)))
        .flat_map(|vn| PLACES.iter().map(move |p| (vn, p)))
        .enumerate()
    {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": format!("The {noun}'s identifier.")},
                "note": {"type": "string", "description": "A note kept with the change."},
                "mode": {"type": "string", "enum": ["draft", "final"], "description": "Mode."}
            },
            "required": ["id"]
        });
        let tool = DynamicTool::new(
            format!("{place}_{verb}_{noun}_{n}"),
            format!("In the {place} service, {verb}s a {noun} given its identifier."),
            schema,
            |_: Value| async { "ok" },
        )
        .expect("a valid tool")
        .with_options(ToolOptions::new().with_defer(Defer::Always));
        registry.register(tool).expect("registers");
    }
    registry
}

/// Searches twice, then answers.
struct Searcher;

impl ChatModel for Searcher {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let answered = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(_)))
            .count();
        let query = [
            "refund a payment in billing",
            "export the git branch report",
        ];
        let reply = match query.get(answered) {
            Some(query) => AssistantMessage::with_tool_calls(vec![ToolCall::new(
                format!("s{answered}"),
                SEARCH_TOOL_NAME,
                json!({ "query": query }).to_string(),
            )]),
            None => AssistantMessage {
                text: Some("done".into()),
                tool_calls: vec![],
            },
        };
        Box::pin(async move { Ok(ChatResponse::new(reply)) })
    }
}

fn search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let agent = ToolLoop::new(Searcher, registry());
    let mut group = c.benchmark_group("search");
    group.sample_size(20);
    group.bench_function("two_searches_1000_deferred", |b| {
        b.iter(|| {
            let mut conversation = vec![Message::user("tidy up")];
            runtime.block_on(agent.run(&mut conversation).into_future())
        })
    });
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
