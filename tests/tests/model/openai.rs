//! `OpenAiCompatibleModel` against a real HTTP server: fakellm (PyPI), answering from the rules
//! of `tests/fakellm/openai.yaml`. `./scripts/test.sh` installs it, starts it and sets
//! `TOOL_SDK_FAKELLM_URL`; these tests fail without it.
//!
//! The whole `ToolLoop` runs over HTTP: several rounds, a payment a person must allow (the
//! gate), compensable bookings rolled back when a later one fails, streamed replies with
//! parallel calls, arguments that are not JSON going back to the model, retries of 500 and
//! 429, and refusals carrying the provider's message.

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tool_sdk::model::http::HttpModelBuilder;

use super::fixtures::{
    answer_text, results, travel_tools, user, Counted, ForecastTool, Journal, Shared,
};

use futures_util::StreamExt as _;
use serde_json::Value;
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::model::openai::OpenAiCompatibleModel;
use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{
    define::ToolErrorKind,
    model::{
        check_conversation, ChatDelta, ChatOptions, ChatRequest, ModelError, OfferedTool,
        ToolResultStatus,
    },
    AssistantMessage, ChatModel, Message, Tool as _, ToolRegistry,
};

/// The base URL of the fakellm server that `./scripts/test.sh` started.
fn fakellm_url() -> String {
    match std::env::var("TOOL_SDK_FAKELLM_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "TOOL_SDK_FAKELLM_URL is not set: these tests need the fakellm server that \
             ./scripts/test.sh installs and starts; run ./scripts/test.sh"
        ),
    }
}

/// A model on the fakellm server, in a conversation of its own (fakellm counts turns per
/// conversation), retrying quickly.
fn fakellm_model(test: &str) -> OpenAiCompatibleModel {
    fakellm_builder(test)
        .build()
        .expect("the fakellm model builds")
}

fn fakellm_builder(test: &str) -> HttpModelBuilder<tool_sdk::model::openai::OpenAiCompatible> {
    fakellm_conversation(test).0
}

/// A builder for a model on the fakellm server, and the id of its conversation.
fn fakellm_conversation(
    test: &str,
) -> (
    HttpModelBuilder<tool_sdk::model::openai::OpenAiCompatible>,
    String,
) {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let conversation = format!(
        "{test}-{}-{nanos}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    );
    let builder = OpenAiCompatibleModel::builder()
        .with_base_url(fakellm_url())
        .with_api_key("not-a-real-key")
        .with_model("fake-model")
        .with_timeout(Duration::from_secs(30))
        .with_retry_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .with_header("X-Fakellm-Conversation-Id", &conversation);
    (builder, conversation)
}

/// The request bodies of `conversation`, as the validating proxy in front of fakellm received
/// them (each one checked against the `openai` package's request types on the way).
fn bodies_sent(conversation: &str) -> Vec<Value> {
    use std::io::{Read as _, Write as _};
    let url = fakellm_url();
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("the fakellm URL is http://HOST:PORT/...");
    let mut stream = std::net::TcpStream::connect(authority).expect("the proxy is up");
    write!(
        stream,
        "GET /_proxy/requests?conversation={conversation} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let listing: Value = serde_json::from_str(body).expect("JSON");
    listing["requests"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn several_rounds_then_a_payment_a_person_allows() {
    let journal = Journal::default();
    let model = Counted::new(fakellm_model("trip-allow"));
    let agent = ToolLoop::new(Shared(Arc::clone(&model)), travel_tools(&journal)).with_gate(
        Gate::new(ConfirmationPolicy::new().with_confirmed_tool("pay")),
    );
    let mut conversation = user("scenario:trip Book 2 nights in Lisbon if it is sunny.");

    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!("the payment waits for a decision: {:?}", outcome.status);
    };
    assert_eq!(outcome.rounds, 3);
    let awaiting = paused.awaiting().to_vec();
    assert_eq!(awaiting.len(), 1);
    assert!(
        awaiting[0].starts_with("call_"),
        "keyed by fakellm's call id: {awaiting:?}"
    );
    assert_eq!(
        *journal.lock().unwrap(),
        ["flight to Lisbon", "hotel in Lisbon for 2"],
        "the two bookings of one reply ran; nothing was paid"
    );
    check_conversation(&conversation).unwrap();

    let decisions = paused.decide().allow(&awaiting[0]).build();
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert_eq!(
        answer_text(&outcome.status),
        "Your flight and 2 nights in Lisbon are booked and paid."
    );
    assert_eq!(outcome.rounds, 4);
    assert!(outcome.compensations.is_empty());
    assert_eq!(
        *journal.lock().unwrap(),
        ["flight to Lisbon", "hotel in Lisbon for 2", "paid 420"]
    );
    check_conversation(&conversation).unwrap();
    assert_eq!(
        results(&conversation),
        [
            (
                "get_weather",
                ToolResultStatus::Success,
                "Lisbon: sunny, 21 °C"
            ),
            (
                "book_flight",
                ToolResultStatus::Success,
                "flight booked: FL-Lisbon"
            ),
            (
                "book_hotel",
                ToolResultStatus::Success,
                "hotel booked: HT-Lisbon-2"
            ),
            ("pay", ToolResultStatus::Success, "paid 420"),
        ]
    );
    assert_eq!(conversation.len(), 9);
    assert_eq!(
        model.counts(),
        (4, 0),
        "a gated run asks for whole replies, since no call may run before all are known"
    );
}

#[tokio::test]
async fn a_denied_payment_goes_back_to_the_model_with_the_persons_words() {
    let journal = Journal::default();
    let agent = ToolLoop::new(fakellm_model("trip-deny"), travel_tools(&journal)).with_gate(
        Gate::new(ConfirmationPolicy::new().with_confirmed_tool("pay")),
    );
    let mut conversation = user("scenario:trip Book 2 nights in Lisbon if it is sunny.");
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!("{:?}", outcome.status);
    };
    let key = paused.awaiting()[0].clone();
    let decisions = paused.decide().deny(&key, "Not this month.").build();
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert_eq!(
        answer_text(&outcome.status),
        "Booked, but not paid: you declined the payment."
    );
    assert!(!journal
        .lock()
        .unwrap()
        .iter()
        .any(|e| e.starts_with("paid")));
    check_conversation(&conversation).unwrap();
    assert_eq!(
        results(&conversation)[3],
        ("pay", ToolResultStatus::Denied, "Not this month.")
    );
}

#[tokio::test]
async fn a_failing_booking_rolls_back_the_streamed_run() {
    let journal = Journal::default();
    let model = Counted::new(fakellm_model("rollback"));
    let agent = ToolLoop::new(Shared(Arc::clone(&model)), travel_tools(&journal));
    let mut conversation = user("scenario:rollback Fly me to Reykjavik and find a hotel.");
    let outcome = agent.run(&mut conversation).await;

    let LoopStatus::RolledBack { name, error, .. } = &outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert_eq!(name, "book_hotel");
    assert_eq!(error.kind(), ToolErrorKind::ExecutionFailed);
    assert_eq!(
        *journal.lock().unwrap(),
        [
            "flight to Reykjavik",
            "no hotel in Atlantis",
            "cancel flight to Reykjavik (flight booked: FL-Reykjavik)",
        ]
    );
    assert_eq!(outcome.compensations.len(), 1);
    assert!(outcome.compensations[0].result.is_ok());
    check_conversation(&conversation).unwrap();
    let results = results(&conversation);
    assert_eq!(results[0].1, ToolResultStatus::RolledBack, "{results:?}");
    assert_eq!(model.counts(), (0, 2), "both replies were streamed");
}

#[tokio::test]
async fn streamed_tool_calls_arrive_whole_with_their_ids() {
    let model = fakellm_model("parallel-stream");
    let conversation = user("scenario:parallel Weather in Lisbon and Oslo?");
    let tools = travel_tools(&Journal::default());
    let offered: Vec<_> = tools.definitions().map(OfferedTool::canonical).collect();
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: &conversation,
        tools: &offered,
        options: &options,
    };
    let stream = model.chat_stream(request).expect("the model streams");
    let deltas: Vec<ChatDelta> = stream.map(|delta| delta.expect("a delta")).collect().await;
    let calls: Vec<(&str, &str)> = deltas
        .iter()
        .map(|delta| match delta {
            ChatDelta::ToolCall(call) => {
                assert!(
                    call.id.as_deref().is_some_and(|id| id.starts_with("call_")),
                    "{call:?}"
                );
                (call.name.as_str(), call.arguments.as_str())
            }
            other => panic!("only calls were expected: {other:?}"),
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("get_weather", r#"{"city": "Lisbon"}"#),
            ("get_weather", r#"{"city": "Oslo"}"#),
        ]
    );
}

#[tokio::test]
async fn a_streamed_run_runs_parallel_calls_and_assembles_the_streamed_answer() {
    let model = Counted::new(fakellm_model("parallel-loop"));
    let agent = ToolLoop::new(
        Shared(Arc::clone(&model)),
        travel_tools(&Journal::default()),
    )
    .with_options(LoopOptions::default().with_concurrency(Concurrency::Bounded(2)));
    let mut conversation = user("scenario:parallel Weather in Lisbon and Oslo?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon and in Oslo.");
    assert_eq!(outcome.rounds, 2);
    check_conversation(&conversation).unwrap();
    assert_eq!(
        results(&conversation),
        [
            (
                "get_weather",
                ToolResultStatus::Success,
                "Lisbon: sunny, 21 °C"
            ),
            (
                "get_weather",
                ToolResultStatus::Success,
                "Oslo: sunny, 21 °C"
            ),
        ]
    );
    assert_eq!(model.counts(), (0, 2));
}

#[tokio::test]
async fn arguments_that_are_not_json_go_back_to_the_model_which_corrects_them() {
    let agent = ToolLoop::new(
        fakellm_model("malformed"),
        travel_tools(&Journal::default()),
    );
    let mut conversation = user("scenario:malformed Weather in Lisbon?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon.");
    assert_eq!(outcome.rounds, 3);
    check_conversation(&conversation).unwrap();
    let Message::Assistant(AssistantMessage { tool_calls, .. }) = &conversation[1] else {
        panic!("{:?}", conversation[1]);
    };
    assert_eq!(
        tool_calls[0].arguments, r#"{"city": NaN}"#,
        "the model's text is kept as it came"
    );
    let results = results(&conversation);
    assert_eq!(results[0].1, ToolResultStatus::Error);
    assert!(
        results[0]
            .2
            .starts_with("Error: the arguments are not valid JSON"),
        "{}",
        results[0].2
    );
    assert_eq!(
        results[1],
        (
            "get_weather",
            ToolResultStatus::Success,
            "Lisbon: sunny, 21 °C"
        )
    );
}

#[tokio::test]
async fn a_500_and_a_429_are_retried_until_the_server_answers() {
    let agent = ToolLoop::new(
        fakellm_builder("flaky")
            .with_max_retries(2)
            .build()
            .unwrap(),
        travel_tools(&Journal::default()),
    )
    .with_options(LoopOptions::default().with_streaming(false));
    let mut conversation = user("scenario:flaky Weather in Lisbon?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon.");
    assert_eq!(outcome.rounds, 2, "retries are not rounds");
    check_conversation(&conversation).unwrap();

    // With one retry, the 429 is the last word.
    let model = fakellm_builder("flaky-short")
        .with_max_retries(1)
        .build()
        .unwrap();
    let conversation = user("scenario:flaky Weather in Lisbon?");
    let error = chat(&model, &conversation).await.unwrap_err();
    assert_eq!(
        error,
        ModelError::Unavailable(
            "HTTP 429: Rate limit reached for requests. (after 2 attempts)".into()
        )
    );
}

#[tokio::test]
async fn a_server_that_stays_down_is_unavailable_after_the_retries() {
    let model = fakellm_builder("down").with_max_retries(2).build().unwrap();
    let error = chat(&model, &user("scenario:down hello?"))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ModelError::Unavailable(
            "HTTP 503: The engine is currently overloaded, please try again later. (after 3 attempts)"
                .into()
        )
    );
}

#[tokio::test]
async fn a_4xx_is_refused_at_once_with_the_providers_message() {
    let refused = ModelError::Refused {
        status: 400,
        message: "Invalid 'messages[1].tool_call_id': no tool call with this id.".into(),
    };
    let model = fakellm_model("refused");
    assert_eq!(
        chat(&model, &user("scenario:refused hello?")).await,
        Err(refused.clone()),
        "not retried: a retry would have been answered"
    );

    let agent = ToolLoop::new(
        fakellm_model("refused-loop"),
        travel_tools(&Journal::default()),
    )
    .with_options(LoopOptions::default().with_streaming(false));
    let mut conversation = user("scenario:refused hello?");
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(&outcome.status, LoopStatus::ModelFailed(error) if *error == refused),
        "{:?}",
        outcome.status
    );
    check_conversation(&conversation).unwrap();
}

/// Not fakellm: a socket that accepts connections and never answers, and a port nobody
/// listens on.
#[tokio::test]
async fn silence_times_out_and_a_closed_port_is_unavailable() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for connection in listener.incoming().take(8) {
            held.push(connection);
        }
    });
    let model = OpenAiCompatibleModel::builder()
        .with_base_url(&silent)
        .with_model("m")
        .with_timeout(Duration::from_millis(300))
        .with_max_retries(1)
        .with_retry_backoff(Duration::from_millis(10), Duration::from_millis(10))
        .build()
        .unwrap();
    let conversation = user("hello?");
    assert_eq!(
        chat(&model, &conversation).await,
        Err(ModelError::Unavailable(
            "no answer within 300ms (after 2 attempts)".into()
        ))
    );
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: &conversation,
        tools: &[],
        options: &options,
    };
    let mut stream = model.chat_stream(request).unwrap();
    assert_eq!(
        stream.next().await,
        Some(Err(ModelError::Unavailable(
            "no answer within 300ms (after 2 attempts)".into()
        )))
    );
    assert_eq!(stream.next().await, None, "a failed stream ends");

    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let model = OpenAiCompatibleModel::builder()
        .with_base_url(&closed)
        .with_model("m")
        .with_max_retries(0)
        .build()
        .unwrap();
    let error = chat(&model, &conversation).await.unwrap_err();
    assert!(
        matches!(&error, ModelError::Unavailable(message) if message.contains("onnect")),
        "{error:?}"
    );
}

async fn chat(
    model: &OpenAiCompatibleModel,
    conversation: &[Message],
) -> Result<AssistantMessage, ModelError> {
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: conversation,
        tools: &[],
        options: &options,
    };
    model.chat(request).await.map(|response| response.message)
}

#[tokio::test]
async fn a_strict_model_sends_the_strict_lowering_and_takes_null_for_left_out() {
    let (builder, conversation) = fakellm_conversation("strict");
    let model = builder.with_strict(true).build().unwrap();
    assert_eq!(model.dialect(), tool_sdk::describe::Dialect::OpenAiStrict);
    let mut tools = ToolRegistry::new();
    tools.register(ForecastTool).unwrap();
    let agent = ToolLoop::new(model, tools);
    let mut chat = user("scenario:strict Weather in Lisbon tomorrow?");
    let outcome = agent.run(&mut chat).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon tomorrow.");
    // `days: null` decoded as left out: the default applied.
    assert_eq!(
        results(&chat),
        [(
            "forecast",
            ToolResultStatus::Success,
            "Lisbon: sunny for 1 day"
        )]
    );

    let bodies = bodies_sent(&conversation);
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let function = &bodies[0]["tools"][0]["function"];
    assert_eq!(function["name"], "forecast");
    assert_eq!(function["strict"], true);
    let strict = tool_sdk::describe::lower(
        "forecast",
        &ForecastTool.definition().parameters,
        tool_sdk::describe::Dialect::OpenAiStrict,
    )
    .unwrap();
    assert_eq!(function["parameters"], strict);
    assert_eq!(
        function["parameters"]["required"],
        serde_json::json!(["city", "days"])
    );
    assert_eq!(function["parameters"]["additionalProperties"], false);
}

#[tokio::test]
async fn a_model_not_strict_sends_the_canonical_schema_without_strict() {
    let (builder, conversation) = fakellm_conversation("not-strict");
    let mut tools = ToolRegistry::new();
    tools.register(ForecastTool).unwrap();
    let agent = ToolLoop::new(builder.build().unwrap(), tools);
    agent
        .run(&mut user("scenario:strict Weather in Lisbon tomorrow?"))
        .await;
    let bodies = bodies_sent(&conversation);
    let function = &bodies[0]["tools"][0]["function"];
    assert!(function.get("strict").is_none(), "{function}");
    assert_eq!(function["parameters"], ForecastTool.definition().parameters);
}

#[tokio::test]
async fn the_gated_compensating_saga_runs_over_chat_completions() {
    tool_sdk_tests::saga_over_http::run_gated_saga(fakellm_model("saga")).await;
}

#[tokio::test]
async fn a_results_media_reads_as_placeholders_or_follows_in_a_user_message() {
    use base64::{engine::general_purpose::STANDARD, Engine as _};
    use tool_sdk::model::openai::MediaFallback;
    use tool_sdk_tests::media::{run_chart, CAPTION, PDF, PNG};

    // By default the tool message reads placeholders, and nothing else is sent.
    let (builder, conversation) = fakellm_conversation("chart");
    run_chart(builder.build().unwrap()).await;
    let bodies = bodies_sent(&conversation);
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(
        messages[2]["content"],
        format!("{CAPTION}\n[image (image/png)]\n[file Q1.pdf (application/pdf)]")
    );

    // Asked to, the media follow the results in a user message the official types take.
    let (builder, conversation) = fakellm_conversation("chart-attached");
    let model = builder
        .with_media_fallback(MediaFallback::UserMessage)
        .build()
        .unwrap();
    run_chart(model).await;
    let bodies = bodies_sent(&conversation);
    let messages = bodies[1]["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    let attached = &messages[3]["content"];
    assert_eq!(attached[1]["type"], "image_url");
    assert_eq!(
        attached[1]["image_url"]["url"],
        format!("data:image/png;base64,{}", STANDARD.encode(PNG))
    );
    assert_eq!(attached[2]["type"], "file");
    assert_eq!(attached[2]["file"]["filename"], "Q1.pdf");
    assert_eq!(
        attached[2]["file"]["file_data"],
        format!("data:application/pdf;base64,{}", STANDARD.encode(PDF))
    );
}
