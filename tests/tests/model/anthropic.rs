//! `AnthropicModel` against fakellm's Messages API, behind the proxy that checks every body
//! against the official `anthropic` package's `MessageCreateParams`: how its bodies carry the
//! contract's scenarios (`contract.rs`), and what is the API's own: the system prompt and
//! strict tool use.

use base64::{engine::general_purpose::STANDARD, Engine as _};
use serde_json::{json, Value};
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::model::anthropic::Anthropic;
use tool_sdk::run::{Budget, BudgetLimit, LoopOptions, LoopStatus};
use tool_sdk::{ChatModel as _, Message, Tool as _, ToolLoop, ToolRegistry};
use tool_sdk_tests::media::{CAPTION, PDF, PNG};

use super::fixtures::{ForecastTool, GetWeatherTool};
use super::servers::{fakellm_url, proxy_bodies, Scenario, Server, Session};

/// The Anthropic Messages API of fakellm.
pub(crate) struct AnthropicServer;

impl Server for AnthropicServer {
    type Provider = Anthropic;
    const NAME: &'static str = "anthropic";
    const MODEL: &'static str = "claude-test";
    const CALL_ID_PREFIX: Option<&'static str> = Some("toolu_");
    const TEXT_WITH_CALLS: bool = true;
    const RATE_LIMITED: &'static str = "Rate limit reached for requests.";
    const DOWN: &'static str = "The engine is currently overloaded, please try again later.";
    const REFUSED: &'static str = "Invalid 'messages[1].tool_call_id': no tool call with this id.";
    const STREAMS_ERRORS: bool = false;
    const API_PATH: &'static str = "";

    /// Anthropic's paths (`/v1/messages`) are under the proxy's root.
    fn base_url() -> String {
        fakellm_url()
            .trim_end_matches('/')
            .trim_end_matches("/v1")
            .to_owned()
    }

    fn bodies_sent(conversation: &str) -> Vec<Value> {
        proxy_bodies(conversation)
    }

    fn check_sent(scenario: Scenario, conversation: &str) {
        let bodies = Self::bodies_sent(conversation);
        let last = bodies.last().expect("a body was sent");
        let text = |content: &str| json!(content);
        match scenario {
            Scenario::TripAllowed => {
                assert_eq!(answered(last), [("pay", text("paid 420"), false)]);
            }
            Scenario::TripDenied => {
                assert_eq!(answered(last), [("pay", text("Not this month."), true)]);
            }
            Scenario::Parallel => {
                assert_eq!(
                    answered(last),
                    [
                        ("get_weather", text("Lisbon: sunny, 21 °C"), false),
                        ("get_weather", text("Oslo: sunny, 21 °C"), false),
                    ],
                    "one user turn, the results in the order of the calls"
                );
            }
            Scenario::Flaky => assert_eq!(bodies.len(), 4, "a 500, a 429, then two rounds"),
            Scenario::Refused => assert_eq!(bodies.len(), 1, "not retried"),
            Scenario::Saga => {
                assert_eq!(
                    answered(last),
                    [("book_flight", text("flight booked: FL-Lisbon"), false)]
                );
            }
            Scenario::Chart => {
                assert_eq!(
                    answered(last),
                    [(
                        "chart",
                        json!([
                            {"type": "text", "text": CAPTION},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": STANDARD.encode(PNG)}},
                            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": STANDARD.encode(PDF)}, "title": "Q1.pdf"},
                        ]),
                        false
                    )]
                );
            }
        }
    }
}

/// The `tool_result` blocks of the user turn that ends `body`, each with the name of the
/// `tool_use` it answers (by id, in the assistant turn before), its content and whether it
/// is an error.
fn answered(body: &Value) -> Vec<(&str, Value, bool)> {
    let turns = body["messages"].as_array().expect("messages");
    let [.., call, result] = turns.as_slice() else {
        panic!("a reply and its results: {turns:#?}");
    };
    assert_eq!(
        (&call["role"], &result["role"]),
        (&json!("assistant"), &json!("user"))
    );
    let uses = call["content"].as_array().expect("the reply's blocks");
    result["content"]
        .as_array()
        .expect("the results' blocks")
        .iter()
        .map(|block| {
            assert_eq!(block["type"], "tool_result", "{block}");
            let called = uses
                .iter()
                .find(|used| used["type"] == "tool_use" && used["id"] == block["tool_use_id"])
                .unwrap_or_else(|| panic!("no tool_use answered by {block}"));
            (
                called["name"].as_str().unwrap(),
                block["content"].clone(),
                block.get("is_error") == Some(&json!(true)),
            )
        })
        .collect()
}

#[tokio::test]
async fn several_rounds_of_calls_with_a_system_prompt_answer() {
    let session = Session::<AnthropicServer>::new("parallel");
    let mut tools = ToolRegistry::new();
    tools.register(GetWeatherTool).unwrap();
    let agent = ToolLoop::new(session.builder().build().unwrap(), tools);
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
    let bodies = session.bodies_sent();
    assert_eq!(bodies[0]["system"], "Answer in one sentence.");
    assert_eq!(bodies[0]["stream"], true, "the loop streams by default");
    assert_eq!(
        bodies[0]["tools"][0]["input_schema"],
        GetWeatherTool.definition().parameters
    );
}

/// fakellm streams a Messages answer as Anthropic does: the input's tokens in `message_start`,
/// the output's, counted again, in `message_delta`. A streamed run counts them, so a token
/// budget holds with the loop's default streaming.
#[tokio::test]
async fn a_streamed_run_counts_the_tokens_its_events_report_and_a_token_budget_stops_it() {
    let session = Session::<AnthropicServer>::new("streamed-usage");
    let mut tools = ToolRegistry::new();
    tools.register(GetWeatherTool).unwrap();
    let agent = ToolLoop::new(session.builder().build().unwrap(), tools);
    let mut chat = vec![Message::user(
        "scenario:parallel Weather in Lisbon and Oslo?",
    )];
    let outcome = agent.run(&mut chat).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(outcome.rounds, 2);
    assert!(
        outcome.usage.input_tokens >= 2 && outcome.usage.output_tokens >= 2,
        "each of the two streamed answers reported its tokens: {:?}",
        outcome.usage
    );
    assert!(session
        .bodies_sent()
        .iter()
        .all(|body| body["stream"] == true));

    let session = Session::<AnthropicServer>::new("streamed-budget");
    let mut tools = ToolRegistry::new();
    tools.register(GetWeatherTool).unwrap();
    let agent = ToolLoop::new(session.builder().build().unwrap(), tools)
        .with_options(LoopOptions::new().with_budget(Budget::new().with_total_tokens(1)));
    let mut chat = vec![Message::user(
        "scenario:parallel Weather in Lisbon and Oslo?",
    )];
    let outcome = agent.run(&mut chat).await;
    let LoopStatus::BudgetExhausted(BudgetLimit::TotalTokens { used, limit: 1 }) = outcome.status
    else {
        panic!(
            "the first answer's tokens exhaust the budget: {:?}",
            outcome.status
        );
    };
    assert_eq!(used, outcome.usage.total());
    assert_eq!(outcome.rounds, 1, "no second request was made");
    assert_eq!(session.bodies_sent().len(), 1);
}

#[tokio::test]
async fn a_strict_model_sends_the_strict_lowering() {
    let session = Session::<AnthropicServer>::new("strict");
    let model = session.builder().with_strict(true).build().unwrap();
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
    let bodies = session.bodies_sent();
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
