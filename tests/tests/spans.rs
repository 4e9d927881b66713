//! The loop's tracing spans carry the OpenTelemetry GenAI attribute names, and so do the calls
//! an MCP server runs.
//!
//! In a test binary of their own: beside other tests running loops on other threads with no
//! subscriber, some spans now and then missed this test's thread-local one (tracing caches,
//! per span site, whether any subscriber wants it).

use std::sync::{Arc, Mutex};

use tool_sdk::gate::ConfirmationPolicy;
use tool_sdk::mcp::{McpClient, McpDecision, McpDecisions, McpServer};
use tool_sdk::run::ToolLoop;
use tool_sdk::{Message, ToolRegistry};
use tool_sdk_tests::add::{registry, script};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span's name and its fields.
type SpanRecord = (String, Vec<(String, String)>);

/// Records every span.
#[derive(Default, Clone)]
struct Spans(Arc<Mutex<Vec<SpanRecord>>>);

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        ));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl Subscriber for Spans {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = Vec::new();
        span.record(&mut Fields(&mut fields));
        let mut spans = self.0.lock().unwrap();
        spans.push((span.metadata().name().to_owned(), fields));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[tokio::test]
async fn spans_carry_the_gen_ai_attribute_names() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(spans.clone());
    let agent = ToolLoop::new(script(), registry());
    let mut conversation = vec![Message::user("1 + 2?")];
    let _ = agent.run(&mut conversation).await;
    let spans = spans.0.lock().unwrap();
    let chat: Vec<_> = spans
        .iter()
        .filter(|(name, _)| name == "gen_ai.chat")
        .collect();
    assert_eq!(
        chat.len(),
        2,
        "{:?}",
        spans.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    assert!(chat[0]
        .1
        .contains(&("gen_ai.operation.name".into(), "chat".into())));
    let tool = spans
        .iter()
        .find(|(name, _)| name == "gen_ai.execute_tool")
        .expect("a tool span");
    assert!(tool
        .1
        .contains(&("gen_ai.operation.name".into(), "execute_tool".into())));
    assert!(tool.1.contains(&("gen_ai.tool.name".into(), "add".into())));
    assert!(tool
        .1
        .contains(&("gen_ai.tool.call.id".into(), "call_9".into())));
    assert!(tool
        .1
        .contains(&("otel.name".into(), "execute_tool add".into())));
    assert!(tool
        .1
        .contains(&("gen_ai.tool.type".into(), "function".into())));
    assert!(tool
        .1
        .contains(&("tool_sdk.gate.asked".into(), "false".into())));
    // Not opted in: no arguments on the span.
    assert!(
        !tool
            .1
            .iter()
            .any(|(name, _)| name == "gen_ai.tool.call.arguments"),
        "{:?}",
        tool.1
    );
}

/// A call an MCP server runs has the loop's span, with who let it through: here the server's
/// own decisions, for a tool its policy gates.
#[tokio::test]
async fn an_mcp_servers_call_has_the_same_span_with_its_decider() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(spans.clone());
    let server = McpServer::builder("calculator", "1.0.0")
        .with_confirmation_policy(ConfirmationPolicy::new().with_confirmed_tool("add"))
        .with_decisions(McpDecisions::decide_with(|_| McpDecision::Allow))
        .build(registry())
        .expect("a server");
    let (client_side, server_side) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_side);
    let client = McpClient::builder()
        .connect_io(client_read, client_write)
        .await
        .expect("a session");
    let mut tools = ToolRegistry::new();
    client.register_into(&mut tools).await.expect("the tools");
    let sum = tools
        .call("add", r#"{"a": 1, "b": 2}"#)
        .await
        .expect("the call runs");
    assert_eq!(sum.content(), "3");
    drop(client);
    let _ = serving.await;

    let spans = spans.0.lock().unwrap();
    let tool = spans
        .iter()
        .find(|(name, _)| name == "gen_ai.execute_tool")
        .expect("the server's call has a span");
    for expected in [
        ("gen_ai.tool.name", "add"),
        ("otel.name", "execute_tool add"),
        ("tool_sdk.gate.asked", "true"),
        ("tool_sdk.gate.decision", "allowed"),
        ("tool_sdk.gate.decider", "mcp_server_policy"),
    ] {
        assert!(
            tool.1.contains(&(expected.0.into(), expected.1.into())),
            "{expected:?} not in {:?}",
            tool.1
        );
    }
}
