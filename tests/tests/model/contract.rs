//! The contract every HTTP model keeps: the same scenarios, run against each provider's own
//! test server (`scenario:*` rules of the same names in `tests/fakellm/openai.yaml` and
//! `tests/gemini/gemini.yaml`), with the same checks. What differs between providers (their
//! error messages, their call ids, the shape of their bodies) is the [`Server`]'s to say.
//!
//! Scenarios: rounds, a gated payment allowed or denied, a rollback after a failing booking,
//! calls streamed whole, two calls of a streamed reply run together, retries of a 5xx and a
//! 429, a server that stays down, a refusal, a socket that stays silent and a closed port, the
//! gated compensating saga, and a result holding media.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt as _;
use serde_json::{json, Value};
use tool_sdk::define::ToolError;
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::model::http::HttpModel;
use tool_sdk::model::{
    check_conversation, ChatDelta, ChatOptions, ChatRequest, ModelError, OfferedTool,
    ToolResultStatus,
};
use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{define_tool, AssistantMessage, ChatModel, Message, ToolRegistry};

use super::fixtures::{
    answer_text, bookings, results, travel_tools, user, Counted, Journal, Shared,
};
use super::servers::{Scenario, Server, Session};

/// The results of the trip, in order, when the payment is allowed.
const TRIP_RESULTS: [(&str, ToolResultStatus, &str); 4] = [
    (
        "get_weather",
        ToolResultStatus::Success,
        "Lisbon: sunny, 21 °C",
    ),
    (
        "book_flight",
        ToolResultStatus::Success,
        "flight booked: FL-Lisbon",
    ),
    (
        "book_hotel",
        ToolResultStatus::Success,
        "hotel booked: HT-Lisbon-2",
    ),
    ("pay", ToolResultStatus::Success, "paid 420"),
];

/// The key a paused run gives the first call of a reply on `S`: its id, or `#0` where calls
/// come without one.
fn assert_call_key<S: Server>(key: &str) {
    match S::CALL_ID_PREFIX {
        Some(prefix) => assert!(key.starts_with(prefix), "keyed by the call's id: {key}"),
        None => assert_eq!(key, "#0", "a call without an id is keyed by its place"),
    }
}

/// One whole answer of `model` to `conversation`, offering no tool.
pub(crate) async fn chat(
    model: &impl ChatModel,
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

/// What a stream of `model`'s answer to `conversation` gives, offering no tool.
async fn chat_stream(
    model: &impl ChatModel,
    conversation: &[Message],
) -> Vec<Result<ChatDelta, ModelError>> {
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: conversation,
        tools: &[],
        options: &options,
    };
    let stream = model.chat_stream(request).expect("the model streams");
    stream.collect().await
}

/// Several rounds, then a payment a person must allow (a policy of the gate): the run pauses
/// before anything of the reply runs, asks only for whole replies, and resumes once allowed.
pub(crate) async fn trip_allowed<S: Server>() {
    let journal = Journal::default();
    let session = Session::<S>::new("trip-allow");
    let model = Counted::new(session.builder().build().unwrap());
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
    assert_eq!(awaiting.len(), 1, "{awaiting:?}");
    assert_call_key::<S>(&awaiting[0]);
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
    assert_eq!(results(&conversation), TRIP_RESULTS);
    assert_eq!(conversation.len(), 9);
    assert_eq!(
        model.counts(),
        (4, 0),
        "a gated run asks for whole replies, since no call may run before all are known"
    );
    assert_eq!(
        session.bodies_sent().len(),
        4,
        "one request a round: the pause sent none"
    );
    S::check_sent(Scenario::TripAllowed, &session.conversation);
}

/// The same trip, the payment denied: the person's words go back to the model as the call's
/// result, and nothing is paid. (The saga gates its payment by the tool's own `confirm`.)
pub(crate) async fn trip_denied<S: Server>() {
    let journal = Journal::default();
    let session = Session::<S>::new("trip-deny");
    let agent = ToolLoop::new(session.builder().build().unwrap(), travel_tools(&journal))
        .with_gate(Gate::new(
            ConfirmationPolicy::new().with_confirmed_tool("pay"),
        ));
    let mut conversation = user("scenario:trip Book 2 nights in Lisbon if it is sunny.");
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Paused(paused) = outcome.status else {
        panic!("{:?}", outcome.status);
    };
    let key = paused.awaiting()[0].clone();
    assert_call_key::<S>(&key);
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
        .any(|entry| entry.starts_with("paid")));
    check_conversation(&conversation).unwrap();
    assert_eq!(
        results(&conversation)[3],
        ("pay", ToolResultStatus::Denied, "Not this month.")
    );
    S::check_sent(Scenario::TripDenied, &session.conversation);
}

/// A booking that fails after one that succeeded, in a streamed run: the first is rolled back.
pub(crate) async fn rollback<S: Server>() {
    let journal = Journal::default();
    let model = Counted::new(Session::<S>::model("rollback"));
    let agent = ToolLoop::new(Shared(Arc::clone(&model)), bookings(&journal));
    let mut conversation = user("scenario:rollback Fly me to Reykjavik and find a hotel.");
    let outcome = agent.run(&mut conversation).await;

    let LoopStatus::RolledBack { name, error, .. } = &outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert_eq!(name, "book_hotel");
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
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

/// The two calls of a streamed reply arrive whole, each with the provider's id (or none), their
/// arguments JSON objects.
pub(crate) async fn streamed_calls<S: Server>() {
    let model = Session::<S>::model("parallel-stream");
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
    let calls: Vec<(&str, Value)> = deltas
        .iter()
        .filter_map(|delta| match delta {
            ChatDelta::ToolCall(call) => {
                match S::CALL_ID_PREFIX {
                    Some(prefix) => assert!(
                        call.id.as_deref().is_some_and(|id| id.starts_with(prefix)),
                        "{call:?}"
                    ),
                    None => assert_eq!(call.id, None, "{call:?}"),
                }
                let arguments = serde_json::from_str(&call.arguments).expect("JSON arguments");
                Some((call.name.as_str(), arguments))
            }
            ChatDelta::Text(_) if S::TEXT_WITH_CALLS => None,
            ChatDelta::Usage(_) => None,
            other => panic!("only calls were expected: {other:?}"),
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("get_weather", json!({"city": "Lisbon"})),
            ("get_weather", json!({"city": "Oslo"})),
        ],
        "{deltas:?}"
    );
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

/// Two calls of one streamed reply run together; their results go back in the order of the
/// calls, not of their ends, and the streamed answer is assembled.
pub(crate) async fn parallel<S: Server>() {
    let journal = Journal::default();
    let session = Session::<S>::new("parallel-loop");
    let model = Counted::new(session.builder().build().unwrap());
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
    assert_eq!(session.bodies_sent().len(), 2);
    S::check_sent(Scenario::Parallel, &session.conversation);
}

/// A 5xx, then a 429, then answers: retried until the server answers, the retries no rounds.
/// With one retry only, the 429 is the last word.
pub(crate) async fn flaky<S: Server>() {
    let session = Session::<S>::new("flaky");
    let agent = ToolLoop::new(
        session.builder().with_max_retries(2).build().unwrap(),
        travel_tools(&Journal::default()),
    )
    .with_options(LoopOptions::default().with_streaming(false));
    let mut conversation = user("scenario:flaky Weather in Lisbon?");
    let outcome = agent.run(&mut conversation).await;
    assert_eq!(answer_text(&outcome.status), "Sunny in Lisbon.");
    assert_eq!(outcome.rounds, 2, "retries are not rounds");
    check_conversation(&conversation).unwrap();
    S::check_sent(Scenario::Flaky, &session.conversation);

    let model = Session::<S>::new("flaky-short")
        .builder()
        .with_max_retries(1)
        .build()
        .unwrap();
    let error = chat(&model, &user("scenario:flaky Weather in Lisbon?"))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ModelError::Unavailable(format!("HTTP 429: {} (after 2 attempts)", S::RATE_LIMITED))
    );
}

/// A server that answers 503 every time: unavailable after the retries, whole or (where the
/// server fails streams too) streamed, and a failed stream ends.
pub(crate) async fn down<S: Server>() {
    let model = Session::<S>::new("down")
        .builder()
        .with_max_retries(2)
        .build()
        .unwrap();
    let unavailable = ModelError::Unavailable(format!("HTTP 503: {} (after 3 attempts)", S::DOWN));
    let conversation = user("scenario:down hello?");
    assert_eq!(chat(&model, &conversation).await, Err(unavailable.clone()));
    if S::STREAMS_ERRORS {
        assert_eq!(chat_stream(&model, &conversation).await, [Err(unavailable)]);
    }
}

/// A 4xx is refused at once (a retry would have been answered) with the provider's message,
/// whole or (where the server fails streams too) streamed, and ends the run with the model's
/// failure.
pub(crate) async fn refused<S: Server>() {
    let refused = ModelError::Refused {
        status: 400,
        message: S::REFUSED.into(),
    };
    let session = Session::<S>::new("refused");
    let model = session.builder().build().unwrap();
    assert_eq!(
        chat(&model, &user("scenario:refused hello?")).await,
        Err(refused.clone()),
        "not retried: a retry would have been answered"
    );
    S::check_sent(Scenario::Refused, &session.conversation);

    let modes: &[bool] = if S::STREAMS_ERRORS {
        &[false, true]
    } else {
        &[false]
    };
    for &streaming in modes {
        let agent = ToolLoop::new(
            Session::<S>::model("refused-loop"),
            travel_tools(&Journal::default()),
        )
        .with_options(LoopOptions::default().with_streaming(streaming));
        let mut conversation = user("scenario:refused hello?");
        let outcome = agent.run(&mut conversation).await;
        assert!(
            matches!(&outcome.status, LoopStatus::ModelFailed(error) if *error == refused),
            "streaming {streaming}: {:?}",
            outcome.status
        );
        check_conversation(&conversation).unwrap();
    }
}

/// Not a test server: a socket that accepts connections and never answers times out, whole
/// and streamed; a port nobody listens on is unavailable.
pub(crate) async fn silence_and_a_closed_port<S: Server>() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = format!("http://{}{}", listener.local_addr().unwrap(), S::API_PATH);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for connection in listener.incoming().take(8) {
            held.push(connection);
        }
    });
    let model = HttpModel::<S::Provider>::builder()
        .with_base_url(&silent)
        .with_api_key("k")
        .with_model("m")
        .with_timeout(Duration::from_millis(300))
        .with_max_retries(1)
        .with_retry_backoff(Duration::from_millis(10), Duration::from_millis(10))
        .build()
        .unwrap();
    let conversation = user("hello?");
    let timed_out = ModelError::Unavailable("no answer within 300ms (after 2 attempts)".into());
    assert_eq!(chat(&model, &conversation).await, Err(timed_out.clone()));
    assert_eq!(
        chat_stream(&model, &conversation).await,
        [Err(timed_out)],
        "a failed stream ends"
    );

    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}{}", listener.local_addr().unwrap(), S::API_PATH)
    };
    let model = HttpModel::<S::Provider>::builder()
        .with_base_url(&closed)
        .with_api_key("k")
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

/// The gated, compensating saga (`tests/support/saga_over_http.rs`): two rounds, a decision, a
/// compensation after a failure; the rollback asks nothing.
pub(crate) async fn saga<S: Server>() {
    let session = Session::<S>::new("saga");
    tool_sdk_tests::saga_over_http::run_gated_saga(session.builder().build().unwrap()).await;
    let bodies = session.bodies_sent();
    assert_eq!(
        bodies.len(),
        2,
        "two rounds; the rollback asks nothing: {bodies:#?}"
    );
    S::check_sent(Scenario::Saga, &session.conversation);
}

/// A result holding text, an image and a PDF goes back to the model in the provider's way,
/// and the model answers from it.
pub(crate) async fn chart<S: Server>() {
    let session = Session::<S>::new("chart");
    tool_sdk_tests::media::run_chart(session.builder().build().unwrap()).await;
    S::check_sent(Scenario::Chart, &session.conversation);
}

/// The contract's tests for a server: `contract!(module, Server)`.
macro_rules! contract {
    ($module:ident, $server:ty) => {
        mod $module {
            use super::*;

            #[tokio::test]
            async fn several_rounds_then_a_payment_a_person_allows() {
                trip_allowed::<$server>().await;
            }

            #[tokio::test]
            async fn a_denied_payment_goes_back_to_the_model_with_the_persons_words() {
                trip_denied::<$server>().await;
            }

            #[tokio::test]
            async fn a_failing_booking_rolls_back_the_streamed_run() {
                rollback::<$server>().await;
            }

            #[tokio::test]
            async fn streamed_calls_arrive_whole() {
                streamed_calls::<$server>().await;
            }

            #[tokio::test]
            async fn two_calls_of_a_streamed_reply_run_together_and_go_back_in_call_order() {
                parallel::<$server>().await;
            }

            #[tokio::test]
            async fn a_5xx_and_a_429_are_retried_until_the_server_answers() {
                flaky::<$server>().await;
            }

            #[tokio::test]
            async fn a_server_that_stays_down_is_unavailable_after_the_retries() {
                down::<$server>().await;
            }

            #[tokio::test]
            async fn a_4xx_is_refused_at_once_with_the_providers_message() {
                refused::<$server>().await;
            }

            #[tokio::test]
            async fn silence_times_out_and_a_closed_port_is_unavailable() {
                silence_and_a_closed_port::<$server>().await;
            }

            #[tokio::test]
            async fn the_gated_compensating_saga_runs() {
                saga::<$server>().await;
            }

            #[tokio::test]
            async fn a_results_image_and_pdf_go_back_to_the_model() {
                chart::<$server>().await;
            }
        }
    };
}

contract!(openai, super::super::openai::OpenAiServer);
contract!(anthropic, super::super::anthropic::AnthropicServer);
contract!(gemini, super::super::gemini::GeminiServer);
