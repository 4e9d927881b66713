//! `GeminiModel` against a Gemini API server of the tests' own (`tests/servers/gemini_server.py`),
//! answering from the rules of `tests/gemini/gemini.yaml` and checking every body against the
//! `google-genai` package's types (a body it refuses is a 400, and fails the test that sent
//! it). `./scripts/test.sh` installs and starts it and sets `TOOL_SDK_GEMINI_URL`; these tests
//! fail without it.
//!
//! The whole `ToolLoop` runs over HTTP: the gated saga every model runs
//! (`tests/support/saga_over_http.rs`), rounds, two calls of one reply without ids whose results
//! go back in the order of the calls, streaming, a `confirm` tool paused and resumed, a
//! rollback after a failing booking, retries of 503 and 429, refusals carrying Gemini's
//! message, a missing key, and the Gemini lowering of each tool's schema in the bodies sent.

use super::fixtures::{
    answer_text, bookings, results, user, Counted, ForecastTool, GetWeatherTool, Journal, Shared,
};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt as _;
use serde_json::{json, Value};
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::model::gemini::{Gemini, GeminiModel};
use tool_sdk::model::http::HttpModelBuilder;
use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{
    define::ToolErrorKind,
    define_tool,
    model::{
        check_conversation, ChatDelta, ChatOptions, ChatRequest, ModelError, OfferedTool,
        ToolResultStatus,
    },
    tool, AssistantMessage, ChatModel, Message, Tool as _, ToolCall, ToolRegistry,
};

/// The base URL (up to `/v1beta`) of the Gemini server that `./scripts/test.sh` started.
fn gemini_url() -> String {
    match std::env::var("TOOL_SDK_GEMINI_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "TOOL_SDK_GEMINI_URL is not set: these tests need the Gemini test server that \
             ./scripts/test.sh starts (tests/servers/gemini_server.py); run ./scripts/test.sh"
        ),
    }
}

/// An id no other conversation of any test run has.
fn conversation_id(test: &str) -> String {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "gemini-{test}-{}-{nanos}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    )
}

/// A builder for a model on the Gemini server, in a conversation of its own (the server counts
/// turns per conversation), retrying quickly; and the conversation's id.
fn gemini_conversation(test: &str) -> (HttpModelBuilder<Gemini>, String) {
    let conversation = conversation_id(test);
    let builder = GeminiModel::builder()
        .with_base_url(gemini_url())
        .with_api_key("not-a-real-key")
        .with_model("gemini-2.5-flash")
        .with_timeout(Duration::from_secs(30))
        .with_retry_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .with_header("X-Fakellm-Conversation-Id", &conversation);
    (builder, conversation)
}

fn gemini_builder(test: &str) -> HttpModelBuilder<Gemini> {
    gemini_conversation(test).0
}

fn gemini_model(test: &str) -> GeminiModel {
    gemini_builder(test)
        .build()
        .expect("the Gemini model builds")
}

/// What the server recorded of the requests it received, each with its `body`, `method`,
/// `query`, `headers` and `status`: those of `conversation`, or every one.
fn requests_seen(conversation: Option<&str>) -> Vec<Value> {
    let url = gemini_url();
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("the Gemini URL is http://HOST:PORT/...");
    let query = conversation.map_or(String::new(), |id| format!("?conversation={id}"));
    let mut stream = std::net::TcpStream::connect(authority).expect("the server is up");
    write!(
        stream,
        "GET /_gemini/requests{query} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    match serde_json::from_str(body).expect("JSON") {
        Value::Array(requests) => requests,
        other => panic!("not a list of requests: {other}"),
    }
}

/// The bodies of `conversation`'s requests, in order, each checked against the google-genai
/// types on the way (a refused one is answered 400).
fn bodies_sent(conversation: &str) -> Vec<Value> {
    requests_seen(Some(conversation))
        .into_iter()
        .map(|request| {
            assert_eq!(request["status"], 200, "{request}");
            request["body"].clone()
        })
        .collect()
}

/// The travel tools: the weather (`#[tool]`), compensable bookings, and a payment a person
/// approves (`confirm`).
fn travel_tools(journal: &Journal) -> ToolRegistry {
    let mut registry = bookings(journal);
    let log = Arc::clone(journal);
    registry
        .register(define_tool!(
            /// Pays an amount in euros. A person approves every payment first.
            #[tool(name = "pay", confirm)]
            move |
                /// Euros.
                amount: u32,
            | -> String {
                log.lock().unwrap().push(format!("paid {amount}"));
                format!("paid {amount}")
            }
        ))
        .unwrap();
    registry
}

async fn chat(
    model: &GeminiModel,
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
async fn a_run_of_two_rounds_calls_the_tool_and_answers_from_its_result() {
    let (builder, conversation_id) = gemini_conversation("weather");
    let model = Counted::new(builder.build().unwrap());
    let mut tools = ToolRegistry::new();
    tools.register(GetWeatherTool).unwrap();
    let agent = ToolLoop::new(Shared(Arc::clone(&model)), tools);
    let mut conversation = vec![
        Message::system("Answer in one sentence."),
        Message::user("scenario:weather What is the weather in Lisbon?"),
    ];
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "It is sunny in Lisbon.");
    assert_eq!(outcome.rounds, 2);
    check_conversation(&conversation).unwrap();
    assert_eq!(
        results(&conversation),
        [(
            "get_weather",
            ToolResultStatus::Success,
            "Lisbon: sunny, 21 °C"
        )]
    );
    let Message::Assistant(reply) = &conversation[2] else {
        panic!("{:?}", conversation[2]);
    };
    assert_eq!(
        reply.tool_calls,
        [ToolCall::without_id("get_weather", r#"{"city":"Lisbon"}"#)],
        "Gemini's call comes without an id, its args as JSON text"
    );
    assert_eq!(model.counts(), (0, 2), "both replies were streamed");

    let requests = requests_seen(Some(&conversation_id));
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request["method"], "streamGenerateContent");
        assert_eq!(request["query"], "alt=sse");
        assert_eq!(request["model"], "gemini-2.5-flash");
        assert_eq!(request["headers"]["x-goog-api-key"], "not-a-real-key");
    }
    let second = &requests[1]["body"];
    assert_eq!(
        second["systemInstruction"],
        json!({"parts": [{"text": "Answer in one sentence."}]})
    );
    assert_eq!(
        second["contents"],
        json!([
            {"role": "user", "parts": [{"text": "scenario:weather What is the weather in Lisbon?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}}}]},
            {"role": "user", "parts": [{"functionResponse": {
                "name": "get_weather", "response": {"result": "Lisbon: sunny, 21 °C"}}}]},
        ])
    );
}

#[tokio::test]
async fn the_gated_compensating_saga_runs_over_generate_content() {
    let (builder, conversation) = gemini_conversation("saga");
    tool_sdk_tests::saga_over_http::run_gated_saga(builder.build().unwrap()).await;
    let bodies = bodies_sent(&conversation);
    assert_eq!(
        bodies.len(),
        2,
        "two rounds; the rollback asks nothing: {bodies:#?}"
    );
    // The second request answers the flight's call, without an id, in a user content.
    let contents = bodies[1]["contents"].as_array().unwrap();
    assert_eq!(
        contents[1..],
        [
            json!({"role": "model", "parts": [
                {"functionCall": {"name": "book_flight", "args": {"to": "Lisbon"}}}]}),
            json!({"role": "user", "parts": [{"functionResponse": {
                "name": "book_flight", "response": {"result": "flight booked: FL-Lisbon"}}}]}),
        ]
    );
}

#[tokio::test]
async fn several_rounds_then_a_confirm_payment_paused_and_resumed() {
    let journal = Journal::default();
    let (builder, conversation_id) = gemini_conversation("trip-allow");
    let agent = ToolLoop::new(builder.build().unwrap(), travel_tools(&journal));
    let mut conversation = user("scenario:trip Book 2 nights in Lisbon if it is sunny.");

    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!("the payment waits for a decision: {:?}", outcome.status);
    };
    assert_eq!(outcome.rounds, 3);
    assert_eq!(
        paused.awaiting(),
        ["#0"],
        "Gemini's call has no id: keyed by its place"
    );
    assert_eq!(
        *journal.lock().unwrap(),
        ["flight to Lisbon", "hotel in Lisbon for 2"],
        "the two bookings of one reply ran; nothing was paid"
    );
    check_conversation(&conversation).unwrap();

    let decisions = paused.decide().allow("#0").build();
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
    let bodies = bodies_sent(&conversation_id);
    assert_eq!(bodies.len(), 4, "one request a round: the pause sent none");
    assert_eq!(
        bodies[3]["contents"][5],
        json!({"role": "model", "parts": [{"functionCall": {"name": "pay", "args": {"amount": 420}}}]})
    );
    assert_eq!(
        bodies[3]["contents"][6],
        json!({"role": "user", "parts": [{"functionResponse": {
            "name": "pay", "response": {"result": "paid 420"}}}]})
    );
}

#[tokio::test]
async fn a_denied_payment_goes_back_to_the_model_as_an_error_response() {
    let journal = Journal::default();
    let (builder, conversation_id) = gemini_conversation("trip-deny");
    let agent = ToolLoop::new(builder.build().unwrap(), travel_tools(&journal));
    let mut conversation = user("scenario:trip Book 2 nights in Lisbon if it is sunny.");
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!("{:?}", outcome.status);
    };
    let decisions = paused.decide().deny("#0", "Not this month.").build();
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
        .any(|entry| entry.starts_with("paid")));
    check_conversation(&conversation).unwrap();
    assert_eq!(
        results(&conversation)[3],
        ("pay", ToolResultStatus::Denied, "Not this month.")
    );
    let bodies = bodies_sent(&conversation_id);
    assert_eq!(
        bodies[3]["contents"][6]["parts"][0]["functionResponse"]["response"],
        json!({"error": "Not this month."})
    );
}

#[tokio::test]
async fn a_failing_booking_rolls_back_the_streamed_run() {
    let journal = Journal::default();
    let model = Counted::new(gemini_model("rollback"));
    let agent = ToolLoop::new(Shared(Arc::clone(&model)), bookings(&journal));
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

/// `get_weather` that takes longer for Lisbon than for Oslo, writing when each call ends.
fn slow_weather(journal: &Journal) -> ToolRegistry {
    let log = Arc::clone(journal);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Gets the current weather for a city.
            #[tool(name = "get_weather")]
            async move |
                /// The city.
                city: String,
            | -> String {
                let millis = if city == "Lisbon" { 300 } else { 0 };
                tokio::time::sleep(Duration::from_millis(millis)).await;
                log.lock().unwrap().push(city.clone());
                format!("{city}: sunny, 21 °C")
            }
        ))
        .unwrap();
    registry
}

#[tokio::test]
async fn two_calls_of_one_streamed_reply_run_together_and_their_results_go_back_in_call_order() {
    let journal = Journal::default();
    let (builder, conversation_id) = gemini_conversation("parallel-loop");
    let model = Counted::new(builder.build().unwrap());
    let agent = ToolLoop::new(Shared(Arc::clone(&model)), slow_weather(&journal))
        .with_options(LoopOptions::default().with_concurrency(Concurrency::Bounded(2)));
    let mut conversation = user("scenario:parallel Weather in Lisbon and Oslo?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon and in Oslo.");
    assert_eq!(outcome.rounds, 2);
    assert_eq!(
        *journal.lock().unwrap(),
        ["Oslo", "Lisbon"],
        "the calls ran together: Oslo ended first"
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
                "get_weather",
                ToolResultStatus::Success,
                "Oslo: sunny, 21 °C"
            ),
        ]
    );
    assert_eq!(model.counts(), (0, 2));

    let bodies = bodies_sent(&conversation_id);
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        bodies[1]["contents"][1],
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}}},
            {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
        ]}),
        "the calls go back as they came: no ids"
    );
    assert_eq!(
        bodies[1]["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"result": "Lisbon: sunny, 21 °C"}}},
            {"functionResponse": {"name": "get_weather", "response": {"result": "Oslo: sunny, 21 °C"}}},
        ]}),
        "one content, in the order of the calls, not of their ends"
    );
}

#[tokio::test]
async fn streamed_calls_arrive_whole_without_ids() {
    let model = gemini_model("parallel-stream");
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
    assert_eq!(
        deltas,
        [
            ChatDelta::ToolCall(ToolCall::without_id("get_weather", r#"{"city":"Lisbon"}"#)),
            ChatDelta::ToolCall(ToolCall::without_id("get_weather", r#"{"city":"Oslo"}"#)),
        ]
    );

    let model = gemini_model("text-stream");
    let request = ChatRequest {
        messages: &user("scenario:weather hello"),
        tools: &[],
        options: &options,
    };
    let texts: Vec<String> = model
        .chat_stream(request)
        .unwrap()
        .map(|delta| match delta {
            Ok(ChatDelta::Text(text)) => text,
            other => panic!("{other:?}"),
        })
        .collect()
        .await;
    assert!(texts.len() > 1, "the text came in pieces: {texts:?}");
    assert!(
        texts
            .concat()
            .starts_with("[mock response for gemini-2.5-flash"),
        "{texts:?}"
    );
}

#[tokio::test]
async fn a_503_and_a_429_are_retried_until_the_server_answers() {
    let (builder, conversation_id) = gemini_conversation("flaky");
    let agent = ToolLoop::new(
        builder.with_max_retries(2).build().unwrap(),
        travel_tools(&Journal::default()),
    )
    .with_options(LoopOptions::default().with_streaming(false));
    let mut conversation = user("scenario:flaky Weather in Lisbon?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon.");
    assert_eq!(outcome.rounds, 2, "retries are not rounds");
    check_conversation(&conversation).unwrap();
    let statuses: Vec<(Value, Value)> = requests_seen(Some(&conversation_id))
        .iter()
        .map(|request| (request["status"].clone(), request["method"].clone()))
        .collect();
    assert_eq!(
        statuses,
        [
            (json!(503), json!("generateContent")),
            (json!(429), json!("generateContent")),
            (json!(200), json!("generateContent")),
            (json!(200), json!("generateContent")),
        ]
    );

    // With one retry, the 429 is the last word.
    let model = gemini_builder("flaky-short")
        .with_max_retries(1)
        .build()
        .unwrap();
    let error = chat(&model, &user("scenario:flaky Weather in Lisbon?"))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ModelError::Unavailable(
            "HTTP 429: Resource has been exhausted (e.g. check quota). (after 2 attempts)".into()
        )
    );
}

#[tokio::test]
async fn a_server_that_stays_down_is_unavailable_after_the_retries() {
    let model = gemini_builder("down").with_max_retries(2).build().unwrap();
    let error = chat(&model, &user("scenario:down hello?"))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ModelError::Unavailable(
            "HTTP 503: The service is currently unavailable. (after 3 attempts)".into()
        )
    );
    let options = ChatOptions::default();
    let conversation = user("scenario:down hello?");
    let request = ChatRequest {
        messages: &conversation,
        tools: &[],
        options: &options,
    };
    let mut stream = model.chat_stream(request).unwrap();
    assert_eq!(
        stream.next().await,
        Some(Err(ModelError::Unavailable(
            "HTTP 503: The service is currently unavailable. (after 3 attempts)".into()
        )))
    );
    assert_eq!(stream.next().await, None, "a failed stream ends");
}

#[tokio::test]
async fn a_400_is_refused_at_once_with_geminis_message() {
    let refused = ModelError::Refused {
        status: 400,
        message:
            "Please ensure that function response turn comes immediately after a function call turn."
                .into(),
    };
    let (builder, conversation_id) = gemini_conversation("refused");
    let model = builder.build().unwrap();
    assert_eq!(
        chat(&model, &user("scenario:refused hello?")).await,
        Err(refused.clone()),
        "not retried: a retry would have been answered"
    );
    assert_eq!(requests_seen(Some(&conversation_id)).len(), 1);

    let agent = ToolLoop::new(
        gemini_model("refused-loop"),
        travel_tools(&Journal::default()),
    );
    let mut conversation = user("scenario:refused hello?");
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(&outcome.status, LoopStatus::ModelFailed(error) if *error == refused),
        "a streamed request is refused the same: {:?}",
        outcome.status
    );
    check_conversation(&conversation).unwrap();
}

#[tokio::test]
async fn a_missing_api_key_is_refused_by_the_server_and_not_retried() {
    let conversation = conversation_id("no-key");
    let model = GeminiModel::builder()
        .with_base_url(gemini_url())
        .with_model("gemini-2.5-flash")
        .with_max_retries(2)
        .with_header("X-Fakellm-Conversation-Id", &conversation)
        .build()
        .unwrap();
    let error = chat(&model, &user("scenario:weather hello?"))
        .await
        .unwrap_err();
    let ModelError::Refused { status, message } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(*status, 401);
    assert!(
        message.starts_with("Method doesn't allow unregistered callers"),
        "Gemini's own words: {message}"
    );
    // Refused before a conversation is counted: found by the header the test sent.
    let sent = requests_seen(None)
        .into_iter()
        .filter(|request| request["headers"]["x-fakellm-conversation-id"] == conversation.as_str())
        .count();
    assert_eq!(sent, 1, "a refusal is not retried");
}

/// Runs the `schema` scenario on a model built `with_json_schema(json_schema)` (unset: the
/// default of the `v1beta` base URL), and returns the model's dialect and the bodies it sent.
async fn schema_scenario(json_schema: Option<bool>) -> (Dialect, Vec<Value>) {
    let (builder, conversation_id) = gemini_conversation("schema");
    let builder = match json_schema {
        Some(json_schema) => builder.with_json_schema(json_schema),
        None => builder,
    };
    let model = builder.build().unwrap();
    let dialect = model.dialect();
    let mut tools = ToolRegistry::new();
    tools
        .register(ForecastTool)
        .unwrap()
        .register(GetWeatherTool)
        .unwrap();
    let agent = ToolLoop::new(model, tools);
    let mut conversation = user("scenario:schema Weather in Lisbon tomorrow?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon tomorrow.");
    assert_eq!(
        results(&conversation),
        [(
            "forecast",
            ToolResultStatus::Success,
            "Lisbon: sunny for 1 day"
        )]
    );
    let bodies = bodies_sent(&conversation_id);
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    (dialect, bodies)
}

/// A base URL of the stable `v1` API, which has no `parametersJsonSchema`, selects Gemini's
/// OpenAPI subset; `v1beta` (Google's default), JSON Schema; the builder's choice wins.
#[test]
fn a_v1_base_url_selects_the_openapi_dialect() {
    let build = |url: &str, json_schema: Option<bool>| {
        let builder = GeminiModel::builder()
            .with_base_url(url)
            .with_api_key("AIza-test")
            .with_model("gemini-2.5-flash");
        let builder = match json_schema {
            Some(json_schema) => builder.with_json_schema(json_schema),
            None => builder,
        };
        builder.build().unwrap().dialect()
    };
    let v1 = "https://generativelanguage.googleapis.com/v1";
    let v1beta = "https://generativelanguage.googleapis.com/v1beta";
    assert_eq!(build(v1, None), Dialect::Gemini);
    assert_eq!(build(&format!("{v1}/"), None), Dialect::Gemini);
    assert_eq!(build(v1beta, None), Dialect::GeminiJsonSchema);
    assert_eq!(build(v1, Some(true)), Dialect::GeminiJsonSchema);
    assert_eq!(build(v1beta, Some(false)), Dialect::Gemini);
}

/// Names a place: its name, latitude and longitude.
#[tool]
fn name_place(place: (String, f64, f64)) -> String {
    place.0
}

/// A tuple of different types goes in `parametersJsonSchema` as `prefixItems`, which the API
/// takes (the server checks the rest of the schema against google-genai's `JSONSchema`, whose
/// type has no field for it).
#[tokio::test]
async fn a_tuple_of_different_types_goes_as_prefix_items_in_json_schema() {
    let (builder, conversation_id) = gemini_conversation("tuple");
    let model = builder.build().unwrap();
    assert_eq!(model.dialect(), Dialect::GeminiJsonSchema);
    let mut tools = ToolRegistry::new();
    tools.register(NamePlaceTool).unwrap();
    let agent = ToolLoop::new(model, tools);
    let mut conversation = user("scenario:tuple Where is Oslo?");
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    let bodies = bodies_sent(&conversation_id);
    let place = &bodies[0]["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]
        ["properties"]["place"];
    assert_eq!(
        place["prefixItems"],
        json!([{"type": "string"}, {"type": "number", "format": "double"}, {"type": "number", "format": "double"}]),
        "{place}"
    );
}

/// The declarations of `body`, after checking there is one `tools` entry for all, in order.
fn declarations(body: &Value) -> &[Value] {
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "one entry for every declaration: {tools:?}");
    let declarations = tools[0]["functionDeclarations"].as_array().unwrap();
    let names: Vec<&str> = declarations
        .iter()
        .map(|declaration| declaration["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["forecast", "get_weather"]);
    declarations
}

/// On `v1beta` (Google's default), tools go as JSON Schema in `parametersJsonSchema`, which
/// the server checks against google-genai's `JSONSchema`.
#[tokio::test]
async fn the_bodies_carry_each_tool_as_json_schema_by_default() {
    let (dialect, bodies) = schema_scenario(None).await;
    assert_eq!(dialect, Dialect::GeminiJsonSchema);
    let canonical = &ForecastTool.definition().parameters;
    let lowered = lower("forecast", canonical, Dialect::GeminiJsonSchema).unwrap();
    for body in &bodies {
        let declarations = declarations(body);
        assert!(declarations[0].get("parameters").is_none(), "{body}");
        assert_eq!(declarations[0]["parametersJsonSchema"], lowered);
        assert_eq!(declarations[0]["description"], "Forecasts the weather.");
        let days = &declarations[0]["parametersJsonSchema"]["properties"]["days"];
        assert_eq!(
            days["type"],
            json!(["integer", "null"]),
            "an optional parameter is a JSON Schema union with `null`: {days}"
        );
    }
}

/// Built without JSON Schema (a server that knows only `parameters`, or the `v1` API), tools
/// go in `parameters`, in Gemini's OpenAPI subset.
#[tokio::test]
async fn the_bodies_carry_the_openapi_lowering_of_each_tool_without_json_schema() {
    let (dialect, bodies) = schema_scenario(Some(false)).await;
    assert_eq!(dialect, Dialect::Gemini);
    for body in &bodies {
        let declarations = declarations(body);
        let canonical = &ForecastTool.definition().parameters;
        let lowered = lower("forecast", canonical, Dialect::Gemini).unwrap();
        assert!(
            declarations[0].get("parametersJsonSchema").is_none(),
            "{body}"
        );
        assert_eq!(declarations[0]["parameters"], lowered);
        assert_ne!(&declarations[0]["parameters"], canonical);
        let days = &declarations[0]["parameters"]["properties"]["days"];
        assert_eq!(
            (&days["type"], &days["nullable"]),
            (&json!("integer"), &json!(true)),
            "an optional parameter is `nullable`, not a `null` union: {days}"
        );
    }
}

/// Not the Gemini server: a socket of the test's own answers a 429 whose body asks, in a
/// `google.rpc.RetryInfo`, to wait 400 ms (and no `Retry-After` header), then the answer.
#[tokio::test]
async fn the_wait_a_429_body_asks_for_is_honoured() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1beta", listener.local_addr().unwrap());
    let limited = json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.4s"}]
    }})
    .to_string();
    let answered =
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello."}]},
                                          "finishReason": "STOP", "index": 0}]})
        .to_string();
    let answers = [(429, limited), (200, answered)];
    let server = std::thread::spawn(move || {
        let mut arrivals = Vec::new();
        for ((status, body), connection) in answers.iter().zip(listener.incoming()) {
            let mut connection = connection.unwrap();
            read_request(&mut connection);
            arrivals.push(Instant::now());
            write!(
                connection,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        }
        arrivals
    });
    let model = GeminiModel::builder()
        .with_base_url(&base)
        .with_api_key("k")
        .with_model("gemini-2.5-flash")
        .with_retry_backoff(Duration::from_millis(1), Duration::from_millis(1))
        .build()
        .unwrap();
    let reply = chat(&model, &user("hello?")).await.unwrap();
    assert_eq!(reply, AssistantMessage::text("Hello."));
    let arrivals = server.join().unwrap();
    let waited = arrivals[1] - arrivals[0];
    assert!(
        waited >= Duration::from_millis(400),
        "the retry waited {waited:?}, not the 400 ms asked for"
    );
}

/// Reads one HTTP request: its head, then the body its `Content-Length` says.
fn read_request(connection: &mut std::net::TcpStream) {
    let mut reader = BufReader::new(connection);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
}

#[tokio::test]
async fn a_results_image_and_pdf_go_back_as_parts_of_the_function_response() {
    use base64::{engine::general_purpose::STANDARD, Engine as _};
    use tool_sdk_tests::media::{run_chart, CAPTION, PDF, PNG};

    let (builder, conversation) = gemini_conversation("chart");
    run_chart(builder.build().unwrap()).await;
    let bodies = bodies_sent(&conversation);
    let contents = bodies[1]["contents"].as_array().unwrap();
    let response = &contents.last().unwrap()["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "chart");
    assert_eq!(response["response"], json!({"result": CAPTION}));
    assert_eq!(
        response["parts"],
        json!([
            {"inlineData": {"mimeType": "image/png", "data": STANDARD.encode(PNG)}},
            {"inlineData": {"mimeType": "application/pdf", "data": STANDARD.encode(PDF), "displayName": "Q1.pdf"}},
        ])
    );
}
