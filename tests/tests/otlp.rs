//! The loop's `execute_tool` spans as an OpenTelemetry backend sees them: bridged from `tracing`
//! by `tracing-opentelemetry`, exported over OTLP/HTTP (protobuf) by `opentelemetry-otlp`, as an
//! application exports them, to the receiver `scripts/test.sh` starts
//! (`tests/servers/otlp_receiver.py`, on the official `opentelemetry-proto` types;
//! `TOOL_SDK_OTLP_URL`), and read back from it.
//!
//! Alone in its test binary: its subscriber is the thread's, as in `spans.rs`.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{SpanExporter, WithExportConfig as _};
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::Value;
use tool_sdk::register::IntoRegistry as _;
use tool_sdk::run::{LoopOptions, ToolLoop};
use tool_sdk::store::PausedTurn;
use tool_sdk::{tool, AssistantMessage, LoopStatus, Message, ScriptedModel, ToolCall};
use tracing_subscriber::layer::SubscriberExt as _;

/// Looks up an order.
#[tool(read_only)]
fn lookup(order: String) -> String {
    format!("order {order}: two chairs, paid")
}

/// Refunds an order.
#[tool(confirm)]
fn refund(order: String, cents: u32) -> String {
    format!("refunded {cents} cents on {order}")
}

/// Closes a customer's account.
#[tool(confirm)]
fn close_account(customer: String) -> String {
    format!("closed {customer}")
}

/// The receiver's base URL, or `None` (and why, printed) when the test cannot run.
fn receiver() -> Option<String> {
    match std::env::var("TOOL_SDK_OTLP_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            eprintln!(
                "skipped: TOOL_SDK_OTLP_URL is not set; ./scripts/test.sh installs and starts \
                 the OTLP receiver (tests/servers/otlp_receiver.py) and sets it"
            );
            None
        }
    }
}

/// The ids of one run's calls: a round of `lookup` and a call of a tool that does not exist,
/// then a round of `refund` (allowed) and `close_account` (denied).
struct Ids {
    lookup: String,
    unknown: String,
    refund: String,
    close: String,
}

impl Ids {
    fn new(run: &str) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let id = |call: &str| format!("{run}-{call}-{}-{nanos}", std::process::id());
        Self {
            lookup: id("lookup"),
            unknown: id("unknown"),
            refund: id("refund"),
            close: id("close"),
        }
    }

    fn script(&self) -> ScriptedModel {
        ScriptedModel::new([
            AssistantMessage::with_tool_calls(vec![
                ToolCall::new(&self.lookup, "lookup", r#"{"order":"A-17"}"#),
                ToolCall::new(&self.unknown, "cancel_everything", "{}"),
            ]),
            AssistantMessage::with_tool_calls(vec![
                ToolCall::new(&self.refund, "refund", r#"{"order":"A-17","cents":1250}"#),
                ToolCall::new(&self.close, "close_account", r#"{"customer":"ana"}"#),
            ]),
            AssistantMessage {
                text: Some("Refunded; the account stays open.".into()),
                tool_calls: vec![],
            },
        ])
    }
}

/// Allows the refund and denies the account's closing; `decider`, when given, says who decided.
fn decide(
    ids: &Ids,
    decider: Option<&str>,
) -> impl Fn(&PausedTurn) -> tool_sdk::gate::ToolCallDecisions {
    let (refund, close) = (ids.refund.clone(), ids.close.clone());
    let decider = decider.map(str::to_owned);
    move |paused: &PausedTurn| {
        let decisions = paused
            .decide()
            .allow(&refund)
            .deny(&close, "Accounts are closed by a person.")
            .build();
        match &decider {
            Some(decider) => decisions.with_decider(decider.clone()),
            None => decisions,
        }
    }
}

/// Runs `ids`' script to its answer, deciding with `decider`'s decisions.
async fn run(ids: &Ids, options: LoopOptions, decider: Option<&str>) {
    let registry = (LookupTool, RefundTool, CloseAccountTool)
        .into_registry()
        .unwrap();
    let agent = ToolLoop::new(ids.script(), registry)
        .with_options(options)
        .with_approver(decide(ids, decider));
    let mut conversation = vec![Message::user("Refund order A-17 and close my account.")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
}

/// The spans the receiver holds, by call id, for the calls of `ids`.
fn spans_of(url: &str, ids: &Ids) -> BTreeMap<String, Value> {
    let body = tool_sdk_tests::plain_http::request(url, "GET", "/spans");
    let spans: Vec<Value> = serde_json::from_str(&body).expect("the receiver answers JSON");
    let wanted = [&ids.lookup, &ids.unknown, &ids.refund, &ids.close];
    let mut found = BTreeMap::new();
    for span in spans {
        let Some(id) = span["attributes"]["gen_ai.tool.call.id"].as_str() else {
            continue;
        };
        if wanted.iter().any(|wanted| *wanted == id) {
            let earlier = found.insert(id.to_owned(), span.clone());
            assert!(earlier.is_none(), "two spans for the call {id}: {span}");
        }
    }
    found
}

/// What every `execute_tool` span of `tool` carries, whatever became of the call.
fn assert_execute_tool(span: &Value, tool: &str, description: Option<&str>) {
    assert_eq!(span["name"], format!("execute_tool {tool}"), "{span}");
    assert_eq!(span["kind"], "SPAN_KIND_INTERNAL", "{span}");
    assert_eq!(span["scope"], "tool-sdk-tests", "{span}");
    let attributes = &span["attributes"];
    assert_eq!(
        attributes["gen_ai.operation.name"], "execute_tool",
        "{span}"
    );
    assert_eq!(attributes["gen_ai.tool.name"], tool, "{span}");
    assert_eq!(attributes["gen_ai.tool.type"], "function", "{span}");
    match description {
        Some(description) => assert_eq!(attributes["gen_ai.tool.description"], description),
        None => assert!(
            attributes.get("gen_ai.tool.description").is_none(),
            "{span}"
        ),
    }
}

/// The gate's attributes: whether the call waited, the decision, who decided.
fn assert_gate(span: &Value, asked: bool, decision: Option<&str>, decider: Option<&str>) {
    let attributes = &span["attributes"];
    assert_eq!(attributes["tool_sdk.gate.asked"], asked, "{span}");
    assert_eq!(
        attributes
            .get("tool_sdk.gate.decision")
            .and_then(Value::as_str),
        decision,
        "{span}"
    );
    assert_eq!(
        attributes
            .get("tool_sdk.gate.decider")
            .and_then(Value::as_str),
        decider,
        "{span}"
    );
}

fn attribute<'s>(span: &'s Value, name: &str) -> Option<&'s str> {
    span["attributes"].get(name).and_then(Value::as_str)
}

#[tokio::test]
async fn execute_tool_spans_reach_an_otlp_receiver_with_the_gate_s_outcome() {
    let Some(url) = receiver() else {
        return;
    };
    // The tree's reqwest (the exporter's client) is built without a crypto provider of its own.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let exporter = SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{url}/v1/traces"))
        .build()
        .expect("the OTLP exporter");
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("tool-sdk-tests")));
    let guard = tracing::subscriber::set_default(subscriber);

    // Default options: no arguments or results on the spans; the loop's approver decides.
    let plain = Ids::new("plain");
    run(&plain, LoopOptions::new(), None).await;
    // Opted in, and the decisions say who made them.
    let captured = Ids::new("captured");
    run(
        &captured,
        LoopOptions::new().with_capture_tool_content(true),
        Some("ana@example.com"),
    )
    .await;

    drop(guard);
    provider.force_flush().expect("the spans are exported");
    provider.shutdown().expect("the exporter shuts down");

    for (ids, content, decider) in [
        (&plain, false, "approver"),
        (&captured, true, "ana@example.com"),
    ] {
        let spans = spans_of(&url, ids);
        assert_eq!(spans.len(), 4, "one span per call: {spans:#?}");

        // An ungated call: no one was asked, nothing was decided.
        let lookup = &spans[&ids.lookup];
        assert_execute_tool(lookup, "lookup", Some("Looks up an order."));
        assert_gate(lookup, false, None, None);
        assert_eq!(lookup["status"]["code"], "STATUS_CODE_UNSET", "{lookup}");
        assert!(attribute(lookup, "error.type").is_none(), "{lookup}");

        // A call the model made up: it fails, and says how.
        let unknown = &spans[&ids.unknown];
        assert_execute_tool(unknown, "cancel_everything", None);
        assert_gate(unknown, false, None, None);
        assert_eq!(
            attribute(unknown, "error.type"),
            Some("unknown_tool"),
            "{unknown}"
        );
        assert_eq!(unknown["status"]["code"], "STATUS_CODE_ERROR", "{unknown}");

        // A gated call, allowed: it ran.
        let refund = &spans[&ids.refund];
        assert_execute_tool(refund, "refund", Some("Refunds an order."));
        assert_gate(refund, true, Some("allowed"), Some(decider));
        assert!(attribute(refund, "error.type").is_none(), "{refund}");

        // A gated call, denied: it never ran, yet it has its span, which says why.
        let close = &spans[&ids.close];
        assert_execute_tool(close, "close_account", Some("Closes a customer's account."));
        assert_gate(close, true, Some("denied"), Some(decider));
        assert!(attribute(close, "error.type").is_none(), "{close}");
        assert!(
            attribute(close, "gen_ai.tool.call.result").is_none(),
            "{close}"
        );

        // Arguments and results only when the application opted in.
        let arguments = |span| attribute(span, "gen_ai.tool.call.arguments");
        let result = |span| attribute(span, "gen_ai.tool.call.result");
        if content {
            assert_eq!(arguments(lookup), Some(r#"{"order":"A-17"}"#));
            assert_eq!(result(lookup), Some("order A-17: two chairs, paid"));
            assert_eq!(arguments(refund), Some(r#"{"order":"A-17","cents":1250}"#));
            assert_eq!(result(refund), Some("refunded 1250 cents on A-17"));
            assert_eq!(arguments(close), Some(r#"{"customer":"ana"}"#));
        } else {
            for span in spans.values() {
                assert!(arguments(span).is_none(), "{span}");
                assert!(result(span).is_none(), "{span}");
            }
        }
    }
}
