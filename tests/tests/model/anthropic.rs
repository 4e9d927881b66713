//! `AnthropicModel` against a real HTTP server: fakellm's Messages API (PyPI), answering from
//! the rules of `tests/fakellm/openai.yaml`, behind the proxy that checks every body against
//! the official `anthropic` package's `MessageCreateParams`. `./scripts/test.sh` starts both
//! and sets `TOOL_SDK_FAKELLM_URL`; these tests fail without them.

use super::fixtures::{ForecastTool, GetWeatherTool};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt as _;
use serde_json::{json, Value};
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::model::anthropic::{Anthropic, AnthropicModel};
use tool_sdk::model::http::HttpModelBuilder;
use tool_sdk::model::{ChatDelta, ChatOptions, ChatRequest, ModelError, OfferedTool};
use tool_sdk::run::LoopStatus;
use tool_sdk::{ChatModel, Message, Tool as _, ToolLoop, ToolRegistry};
use tool_sdk_tests::saga_over_http::run_gated_saga;

/// The base URL of the proxy before fakellm: Anthropic's paths (`/v1/messages`) are under its
/// root.
fn base_url() -> String {
    match std::env::var("TOOL_SDK_FAKELLM_URL") {
        Ok(url) if !url.trim().is_empty() => {
            url.trim_end_matches('/').trim_end_matches("/v1").to_owned()
        }
        _ => panic!(
            "TOOL_SDK_FAKELLM_URL is not set: these tests need the fakellm server that \
             ./scripts/test.sh installs and starts; run ./scripts/test.sh"
        ),
    }
}

/// A builder for a model on fakellm, in a conversation of its own, and the conversation's id.
fn fakellm(test: &str) -> (HttpModelBuilder<Anthropic>, String) {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let conversation = format!(
        "anthropic-{test}-{}-{nanos}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    );
    let builder = AnthropicModel::builder()
        .with_base_url(base_url())
        .with_api_key("not-a-real-key")
        .with_model("claude-test")
        .with_timeout(Duration::from_secs(30))
        .with_retry_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .with_header("X-Fakellm-Conversation-Id", &conversation);
    (builder, conversation)
}

/// The bodies of `conversation` the validating proxy let through.
fn bodies_sent(conversation: &str) -> Vec<Value> {
    use std::io::{Read as _, Write as _};
    let authority = base_url()
        .strip_prefix("http://")
        .map(str::to_owned)
        .expect("an http:// URL");
    let mut stream = std::net::TcpStream::connect(&authority).expect("the proxy is up");
    write!(
        stream,
        "GET /_proxy/requests?conversation={conversation} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let listing: Value = serde_json::from_str(body).unwrap();
    listing["requests"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn the_gated_compensating_saga_runs_over_the_messages_api() {
    let (builder, conversation) = fakellm("saga");
    run_gated_saga(builder.build().unwrap()).await;
    let bodies = bodies_sent(&conversation);
    assert_eq!(
        bodies.len(),
        2,
        "two rounds; the rollback asks nothing: {bodies:#?}"
    );
    // The second request answers the flight's call, by its id, in a user turn.
    let turns = bodies[1]["messages"].as_array().unwrap();
    let (call, result) = (&turns[turns.len() - 2], &turns[turns.len() - 1]);
    assert_eq!(call["role"], "assistant");
    // fakellm's reply carries a made-up text before the call.
    let tool_use = call["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == "tool_use")
        .expect("the reply's call");
    assert_eq!(result["role"], "user");
    assert_eq!(result["content"][0]["type"], "tool_result");
    assert_eq!(result["content"][0]["tool_use_id"], tool_use["id"]);
    assert_eq!(result["content"][0]["content"], "flight booked: FL-Lisbon");
}

#[tokio::test]
async fn several_rounds_of_calls_with_a_system_prompt_answer() {
    let (builder, conversation) = fakellm("parallel");
    let mut tools = ToolRegistry::new();
    tools.register(GetWeatherTool).unwrap();
    let agent = ToolLoop::new(builder.build().unwrap(), tools);
    let mut chat = vec![
        Message::system("Answer in one sentence."),
        Message::user("scenario:parallel Weather in Lisbon and Oslo?"),
    ];
    let outcome = agent.run(&mut chat).await;
    let LoopStatus::Answered(reply) = &outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert_eq!(reply.text.as_deref(), Some("Sunny in Lisbon and in Oslo."));
    assert_eq!(outcome.rounds, 2);
    let bodies = bodies_sent(&conversation);
    assert_eq!(bodies[0]["system"], "Answer in one sentence.");
    assert_eq!(bodies[0]["stream"], true, "the loop streams by default");
    assert_eq!(
        bodies[0]["tools"][0]["input_schema"],
        GetWeatherTool.definition().parameters
    );
}

#[tokio::test]
async fn streamed_calls_arrive_whole_with_their_ids() {
    let (builder, _) = fakellm("stream");
    let model = builder.build().unwrap();
    let conversation = vec![Message::user(
        "scenario:parallel Weather in Lisbon and Oslo?",
    )];
    let definition = GetWeatherTool.definition();
    let offered = [OfferedTool::canonical(definition)];
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: &conversation,
        tools: &offered,
        options: &options,
    };
    let deltas: Vec<ChatDelta> = model
        .chat_stream(request)
        .expect("the model streams")
        .map(|delta| delta.expect("a delta"))
        .collect()
        .await;
    let calls: Vec<_> = deltas
        .iter()
        .filter_map(|delta| match delta {
            ChatDelta::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2, "{deltas:?}");
    for (call, city) in calls.iter().zip(["Lisbon", "Oslo"]) {
        assert!(
            call.id
                .as_deref()
                .is_some_and(|id| id.starts_with("toolu_")),
            "{call:?}"
        );
        let arguments: Value = serde_json::from_str(&call.arguments).unwrap();
        assert_eq!(arguments, json!({"city": city}));
    }
}

#[tokio::test]
async fn a_strict_model_sends_the_strict_lowering() {
    let (builder, conversation) = fakellm("strict");
    let model = builder.with_strict(true).build().unwrap();
    assert_eq!(model.dialect(), Dialect::AnthropicStrict);
    let mut tools = ToolRegistry::new();
    tools.register(ForecastTool).unwrap();
    let agent = ToolLoop::new(model, tools);
    let mut chat = vec![Message::user("scenario:strict Weather in Lisbon tomorrow?")];
    let outcome = agent.run(&mut chat).await;
    let LoopStatus::Answered(reply) = &outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert_eq!(reply.text.as_deref(), Some("Sunny in Lisbon tomorrow."));
    let bodies = bodies_sent(&conversation);
    let tool = &bodies[0]["tools"][0];
    assert_eq!(tool["strict"], true);
    assert_eq!(
        tool["input_schema"],
        lower(
            "forecast",
            &ForecastTool.definition().parameters,
            Dialect::AnthropicStrict
        )
        .unwrap()
    );
}

#[tokio::test]
async fn errors_are_retried_or_refused_with_the_providers_message() {
    let (builder, _) = fakellm("flaky");
    let mut tools = ToolRegistry::new();
    tools.register(GetWeatherTool).unwrap();
    let agent = ToolLoop::new(builder.build().unwrap(), tools);
    let outcome = agent
        .run(&mut vec![Message::user(
            "scenario:flaky Weather in Lisbon?",
        )])
        .await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );

    let (builder, _) = fakellm("refused");
    let model = builder.build().unwrap();
    let conversation = vec![Message::user("scenario:refused hello?")];
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: &conversation,
        tools: &[],
        options: &options,
    };
    assert_eq!(
        model.chat(request).await.map(|r| r.message),
        Err(ModelError::Refused {
            status: 400,
            message: "Invalid 'messages[1].tool_call_id': no tool call with this id.".into(),
        })
    );

    let (builder, _) = fakellm("down");
    let model = builder.with_max_retries(1).build().unwrap();
    let conversation = vec![Message::user("scenario:down hello?")];
    let request = ChatRequest {
        messages: &conversation,
        tools: &[],
        options: &options,
    };
    assert!(matches!(
        model.chat(request).await,
        Err(ModelError::Unavailable(message)) if message.contains("HTTP 503") && message.contains("2 attempts")
    ));
}

#[tokio::test]
async fn a_results_image_and_pdf_go_back_as_image_and_document_blocks() {
    use base64::{engine::general_purpose::STANDARD, Engine as _};
    use tool_sdk_tests::media::{run_chart, CAPTION, PDF, PNG};

    let (builder, conversation) = fakellm("chart");
    run_chart(builder.build().unwrap()).await;
    let bodies = bodies_sent(&conversation);
    let turns = bodies[1]["messages"].as_array().unwrap();
    let result = &turns.last().unwrap()["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": CAPTION},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": STANDARD.encode(PNG)}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": STANDARD.encode(PDF)}, "title": "Q1.pdf"},
        ])
    );
}
