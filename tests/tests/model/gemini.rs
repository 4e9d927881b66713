//! `GeminiModel` against a Gemini API server of the tests' own (`tests/servers/gemini_server.py`),
//! answering from the rules of `tests/gemini/gemini.yaml` and checking every body against the
//! `google-genai` package's types (a body it refuses is a 400, and fails the test that sent
//! it): how its bodies carry the contract's scenarios (`contract.rs`), and what is the API's
//! own: calls without ids matched by place, text streamed in pieces, a missing key, the wait a
//! 429 body asks for, and the Gemini lowering of each tool's schema on `v1beta` and `v1`.

use base64::{engine::general_purpose::STANDARD, Engine as _};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use serde_json::{json, Value};
use tool_sdk::describe::{lower, Dialect};
use tool_sdk::model::gemini::{Gemini, GeminiModel};
use tool_sdk::model::{
    check_conversation, ChatDelta, ChatOptions, ChatRequest, ModelError, ToolResultStatus,
};
use tool_sdk::run::{Budget, BudgetLimit, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{tool, AssistantMessage, ChatModel, Message, Tool as _, ToolCall, ToolRegistry};
use tool_sdk_tests::media::{CAPTION, PDF, PNG};

use super::contract::chat;
use super::fixtures::{answer_text, results, user, Counted, ForecastTool, GetWeatherTool, Shared};
use super::servers::{
    conversation_id, get_json, server_url, Scenario, Server, Session, CONVERSATION_HEADER,
};

/// The Gemini test server.
pub(crate) struct GeminiServer;

impl Server for GeminiServer {
    type Provider = Gemini;
    const NAME: &'static str = "gemini";
    const MODEL: &'static str = "gemini-2.5-flash";
    const CALL_ID_PREFIX: Option<&'static str> = None;
    const TEXT_WITH_CALLS: bool = false;
    const RATE_LIMITED: &'static str = "Resource has been exhausted (e.g. check quota).";
    const DOWN: &'static str = "The service is currently unavailable.";
    const REFUSED: &'static str =
        "Please ensure that function response turn comes immediately after a function call turn.";
    const STREAMS_ERRORS: bool = true;
    const API_PATH: &'static str = "/v1beta";

    /// Up to `/v1beta`.
    fn base_url() -> String {
        server_url(
            "TOOL_SDK_GEMINI_URL",
            "the Gemini test server (tests/servers/gemini_server.py)",
        )
    }

    /// Every request must have been answered: the server refuses (400) a body that does not
    /// fit google-genai's types.
    fn bodies_sent(conversation: &str) -> Vec<Value> {
        requests_seen(Some(conversation))
            .into_iter()
            .map(|request| {
                assert_eq!(request["status"], 200, "{request}");
                request["body"].clone()
            })
            .collect()
    }

    fn check_sent(scenario: Scenario, conversation: &str) {
        match scenario {
            Scenario::Flaky => {
                let statuses: Vec<(Value, Value)> = requests_seen(Some(conversation))
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
            }
            Scenario::Refused => {
                assert_eq!(requests_seen(Some(conversation)).len(), 1, "not retried");
            }
            _ => {
                let bodies = Self::bodies_sent(conversation);
                let last = bodies.last().expect("a body was sent");
                check_last_contents(scenario, last["contents"].as_array().expect("contents"));
            }
        }
    }
}

/// What the `contents` of a scenario's last request hold: how many turns, and the reply's
/// calls and their responses that end them.
fn check_last_contents(scenario: Scenario, contents: &[Value]) {
    let call = |name: &str, args: Value| json!({"functionCall": {"name": name, "args": args}});
    let response = |name: &str, response: Value| json!({"functionResponse": {"name": name, "response": response}});
    let turns = |calls: Vec<Value>, responses: Vec<Value>| {
        vec![
            json!({"role": "model", "parts": calls}),
            json!({"role": "user", "parts": responses}),
        ]
    };
    let turns_before = match scenario {
        Scenario::TripAllowed | Scenario::TripDenied => 5,
        _ => 1,
    };
    assert_eq!(contents.len(), turns_before + 2, "{contents:#?}");
    let (last_two, answered) = (&contents[turns_before..], &contents[turns_before + 1]);
    match scenario {
        Scenario::TripAllowed => assert_eq!(
            last_two,
            turns(
                vec![call("pay", json!({"amount": 420}))],
                vec![response("pay", json!({"result": "paid 420"}))]
            )
        ),
        Scenario::TripDenied => assert_eq!(
            answered["parts"][0]["functionResponse"]["response"],
            json!({"error": "Not this month."}),
            "a denial goes back as an error response"
        ),
        Scenario::Parallel => assert_eq!(
            last_two,
            turns(
                vec![
                    call("get_weather", json!({"city": "Lisbon"})),
                    call("get_weather", json!({"city": "Oslo"})),
                ],
                vec![
                    response("get_weather", json!({"result": "Lisbon: sunny, 21 °C"})),
                    response("get_weather", json!({"result": "Oslo: sunny, 21 °C"})),
                ]
            ),
            "the calls go back as they came, without ids; their responses in one content, \
             in the order of the calls, not of their ends"
        ),
        Scenario::Saga => assert_eq!(
            last_two,
            turns(
                vec![call("book_flight", json!({"to": "Lisbon"}))],
                vec![response(
                    "book_flight",
                    json!({"result": "flight booked: FL-Lisbon"})
                )]
            )
        ),
        Scenario::Chart => {
            let response = &answered["parts"][0]["functionResponse"];
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
        Scenario::Flaky | Scenario::Refused => unreachable!("checked by their requests"),
    }
}

/// What the server recorded of the requests it received, each with its `body`, `method`,
/// `query`, `headers` and `status`: those of `conversation`, or every one.
fn requests_seen(conversation: Option<&str>) -> Vec<Value> {
    let query = conversation.map_or(String::new(), |id| format!("?conversation={id}"));
    match get_json(
        &GeminiServer::base_url(),
        &format!("/_gemini/requests{query}"),
    ) {
        Value::Array(requests) => requests,
        other => panic!("not a list of requests: {other}"),
    }
}

#[tokio::test]
async fn a_run_of_two_rounds_calls_the_tool_and_answers_from_its_result() {
    let session = Session::<GeminiServer>::new("weather");
    let model = Counted::new(session.builder().build().unwrap());
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

    let requests = requests_seen(Some(&session.conversation));
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

/// A streamed answer's usage is the last count its chunks gave: a streamed run counts what the
/// same run counts whole, and a token budget stops it.
#[tokio::test]
async fn a_streamed_run_counts_what_a_whole_one_does_and_a_token_budget_stops_it() {
    let run = |test: &'static str, options: LoopOptions| async move {
        let session = Session::<GeminiServer>::new(test);
        let mut tools = ToolRegistry::new();
        tools.register(GetWeatherTool).unwrap();
        let agent = ToolLoop::new(session.builder().build().unwrap(), tools).with_options(options);
        let mut conversation = vec![Message::user(
            "scenario:weather What is the weather in Lisbon?",
        )];
        agent.run(&mut conversation).await
    };
    let streamed = run("usage-streamed", LoopOptions::new()).await;
    let whole = run("usage-whole", LoopOptions::new().with_streaming(false)).await;
    assert_eq!(answer_text(&streamed.status), "It is sunny in Lisbon.");
    assert_eq!((streamed.rounds, whole.rounds), (2, 2));
    assert!(streamed.usage.output_tokens > 0, "{:?}", streamed.usage);
    assert_eq!(streamed.usage, whole.usage);

    let budget = Budget::new().with_output_tokens(1);
    let stopped = run("usage-budget", LoopOptions::new().with_budget(budget)).await;
    assert!(
        matches!(
            stopped.status,
            LoopStatus::BudgetExhausted(BudgetLimit::OutputTokens { limit: 1, .. })
        ),
        "{:?}",
        stopped.status
    );
    assert_eq!(stopped.rounds, 1);
}

/// A text answer streams in pieces.
#[tokio::test]
async fn a_text_answer_streams_in_pieces() {
    let model = Session::<GeminiServer>::model("text-stream");
    let options = ChatOptions::default();
    let request = ChatRequest {
        messages: &user("scenario:weather hello"),
        tools: &[],
        options: &options,
    };
    let deltas: Vec<ChatDelta> = model
        .chat_stream(request)
        .unwrap()
        .map(|delta| delta.unwrap())
        .collect()
        .await;
    // The text in pieces, then the usage once the stream ended.
    let Some((ChatDelta::Usage(usage), pieces)) = deltas.split_last() else {
        panic!("the usage comes last: {deltas:?}");
    };
    assert!(usage.output_tokens > 0, "{usage:?}");
    let texts: Vec<String> = pieces
        .iter()
        .map(|delta| match delta {
            ChatDelta::Text(text) => text.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(texts.len() > 1, "the text came in pieces: {texts:?}");
    assert!(
        texts
            .concat()
            .starts_with("[mock response for gemini-2.5-flash"),
        "{texts:?}"
    );
}

#[tokio::test]
async fn a_missing_api_key_is_refused_by_the_server_and_not_retried() {
    let conversation = conversation_id(GeminiServer::NAME, "no-key");
    let model = GeminiModel::builder()
        .with_base_url(GeminiServer::base_url())
        .with_model("gemini-2.5-flash")
        .with_max_retries(2)
        .with_header(CONVERSATION_HEADER, &conversation)
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
    let session = Session::<GeminiServer>::new("schema");
    let builder = session.builder();
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
    let bodies = GeminiServer::bodies_sent(&session.conversation);
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
    let session = Session::<GeminiServer>::new("tuple");
    let model = session.builder().build().unwrap();
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
    let bodies = GeminiServer::bodies_sent(&session.conversation);
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
