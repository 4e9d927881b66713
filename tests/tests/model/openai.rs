//! `OpenAiCompatibleModel` against fakellm's Chat Completions API, behind the proxy that checks
//! every body against the official `openai` package's request types: how its bodies carry the
//! contract's scenarios (`contract.rs`), and what is the API's own: arguments that are not
//! JSON, strict mode, and the media fallback of tool messages.

use serde_json::Value;
use tool_sdk::model::openai::{MediaFallback, OpenAiCompatible};
use tool_sdk::model::{check_conversation, ToolResultStatus};
use tool_sdk::run::ToolLoop;
use tool_sdk::{AssistantMessage, ChatModel as _, Message, Tool as _, ToolRegistry};

use tool_sdk_tests::media::CAPTION;

use super::fixtures::{answer_text, results, travel_tools, user, ForecastTool, Journal};
use super::servers::{fakellm_url, proxy_bodies, Scenario, Server, Session};

/// The OpenAI-compatible API of fakellm.
pub(crate) struct OpenAiServer;

impl Server for OpenAiServer {
    type Provider = OpenAiCompatible;
    const NAME: &'static str = "openai";
    const MODEL: &'static str = "fake-model";
    const CALL_ID_PREFIX: Option<&'static str> = Some("call_");
    const TEXT_WITH_CALLS: bool = false;
    const RATE_LIMITED: &'static str = "Rate limit reached for requests.";
    const DOWN: &'static str = "The engine is currently overloaded, please try again later.";
    const REFUSED: &'static str = "Invalid 'messages[1].tool_call_id': no tool call with this id.";
    const STREAMS_ERRORS: bool = false;
    const API_PATH: &'static str = "/v1";

    fn base_url() -> String {
        fakellm_url()
    }

    fn bodies_sent(conversation: &str) -> Vec<Value> {
        proxy_bodies(conversation)
    }

    fn check_sent(scenario: Scenario, conversation: &str) {
        let bodies = Self::bodies_sent(conversation);
        let last = bodies.last().expect("a body was sent");
        match scenario {
            Scenario::TripAllowed => {
                assert_eq!(answered(last), [("pay", "paid 420")]);
            }
            Scenario::TripDenied => {
                assert_eq!(answered(last), [("pay", "Not this month.")]);
            }
            Scenario::Parallel => {
                assert_eq!(
                    answered(last),
                    [
                        ("get_weather", "Lisbon: sunny, 21 °C"),
                        ("get_weather", "Oslo: sunny, 21 °C")
                    ],
                    "the tool messages follow the order of the calls"
                );
            }
            Scenario::Flaky => assert_eq!(bodies.len(), 4, "a 500, a 429, then two rounds"),
            Scenario::Refused => assert_eq!(bodies.len(), 1, "not retried"),
            Scenario::Saga => {
                assert_eq!(
                    answered(last),
                    [("book_flight", "flight booked: FL-Lisbon")]
                );
            }
            Scenario::Chart => {
                // By default the tool message reads placeholders, and nothing else is sent.
                let messages = last["messages"].as_array().unwrap();
                assert_eq!(messages.len(), 3, "{messages:#?}");
                assert_eq!(messages[2]["role"], "tool");
                assert_eq!(
                    messages[2]["content"],
                    format!("{CAPTION}\n[image (image/png)]\n[file Q1.pdf (application/pdf)]")
                );
            }
        }
    }
}

/// The tool messages that end `body`, each with the name of the call it answers (found by
/// its `tool_call_id` among the calls of the assistant message before them) and its content.
fn answered(body: &Value) -> Vec<(&str, &str)> {
    let messages = body["messages"].as_array().expect("messages");
    let first = messages
        .iter()
        .rposition(|message| message["role"] != "tool")
        .expect("an assistant message before the results");
    let calls = messages[first]["tool_calls"].as_array().expect("its calls");
    messages[first + 1..]
        .iter()
        .map(|message| {
            let call = calls
                .iter()
                .find(|call| call["id"] == message["tool_call_id"])
                .unwrap_or_else(|| panic!("no call answered by {message}"));
            (
                call["function"]["name"].as_str().unwrap(),
                message["content"].as_str().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn arguments_that_are_not_json_go_back_to_the_model_which_corrects_them() {
    let agent = ToolLoop::new(
        Session::<OpenAiServer>::model("malformed"),
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

/// A streamed request asks for its usage in the form the official `openai` package types (the
/// proxy refuses any other), unless the model is told not to.
#[tokio::test]
async fn a_streamed_request_asks_for_its_usage_unless_told_not_to() {
    for (test, asks) in [("stream-usage", true), ("stream-no-usage", false)] {
        let session = Session::<OpenAiServer>::new(test);
        let model = session.builder().with_stream_usage(asks).build().unwrap();
        let mut tools = ToolRegistry::new();
        tools.register(super::fixtures::GetWeatherTool).unwrap();
        let outcome = ToolLoop::new(model, tools)
            .run(&mut user("scenario:parallel Weather in Lisbon and Oslo?"))
            .await;
        assert_eq!(outcome.rounds, 2, "{:?}", outcome.status);
        let bodies = session.bodies_sent();
        assert_eq!(bodies.len(), 2);
        for body in &bodies {
            assert_eq!(body["stream"], true);
            let expected = if asks {
                serde_json::json!({"include_usage": true})
            } else {
                Value::Null
            };
            assert_eq!(body["stream_options"], expected);
        }
    }
}

#[tokio::test]
async fn a_strict_model_sends_the_strict_lowering_and_takes_null_for_left_out() {
    let session = Session::<OpenAiServer>::new("strict");
    let model = session.builder().with_strict(true).build().unwrap();
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

    let bodies = session.bodies_sent();
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
    let session = Session::<OpenAiServer>::new("not-strict");
    let mut tools = ToolRegistry::new();
    tools.register(ForecastTool).unwrap();
    let agent = ToolLoop::new(session.builder().build().unwrap(), tools);
    let _ = agent
        .run(&mut user("scenario:strict Weather in Lisbon tomorrow?"))
        .await;
    let bodies = session.bodies_sent();
    let function = &bodies[0]["tools"][0]["function"];
    assert!(function.get("strict").is_none(), "{function}");
    assert_eq!(function["parameters"], ForecastTool.definition().parameters);
}

/// Asked to, a result's media follow the tool messages in a user message the official types
/// take (by default they read as placeholders: the contract's chart).
#[tokio::test]
async fn asked_to_a_results_media_follow_in_a_user_message() {
    use base64::{engine::general_purpose::STANDARD, Engine as _};
    use tool_sdk_tests::media::{run_chart, PDF, PNG};

    let session = Session::<OpenAiServer>::new("chart-attached");
    let model = session
        .builder()
        .with_media_fallback(MediaFallback::UserMessage)
        .build()
        .unwrap();
    run_chart(model).await;
    let bodies = session.bodies_sent();
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
