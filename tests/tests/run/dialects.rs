//! The loop speaks its model's dialect: each request offers every tool with its parameters
//! lowered to the dialect the model says it speaks, lowered once per tool and kept until the
//! tool changes; a tool the dialect cannot take stops the run before the first request, naming
//! the tool, the place and the rule; deferred tools and the search tool work in every dialect.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tool_sdk::define::{Defer, ToolOptions};
use tool_sdk::describe::search::{search_tool_definition, SEARCH_TOOL_NAME};
use tool_sdk::describe::{lower, Dialect, LoweringError};
use tool_sdk::model::{ChatRequest, ChatStream, ModelFuture};
use tool_sdk::register::{DynamicTool, ProviderFuture, ToolProvider};
use tool_sdk::{
    tool, AssistantMessage, ChatModel, LoopStatus, Message, ScriptedModel, Tool, ToolLoop,
    ToolRegistry,
};

/// A scripted model that keeps, for each request, every tool offered with the parameters it
/// was sent.
struct Recording {
    inner: ScriptedModel,
    seen: Mutex<Vec<Vec<(String, Value)>>>,
}

impl Recording {
    fn new(dialect: Dialect, replies: impl IntoIterator<Item = AssistantMessage>) -> Arc<Self> {
        Arc::new(Self {
            inner: ScriptedModel::new(replies).with_dialect(dialect),
            seen: Mutex::new(Vec::new()),
        })
    }

    fn requests(&self) -> Vec<Vec<(String, Value)>> {
        self.seen.lock().unwrap().clone()
    }

    /// The parameters `tool` was offered with in request `index`.
    fn offered(&self, index: usize, tool: &str) -> Value {
        let requests = self.requests();
        requests[index]
            .iter()
            .find(|(name, _)| name == tool)
            .map(|(_, schema)| schema.clone())
            .unwrap_or_else(|| panic!("`{tool}` is not offered in request {index}"))
    }
}

impl ChatModel for Recording {
    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }

    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        self.seen.lock().unwrap().push(
            request
                .tools
                .iter()
                .map(|tool| (tool.name().to_owned(), tool.parameters.clone()))
                .collect(),
        );
        self.inner.chat(request)
    }

    fn chat_stream<'a>(&'a self, _: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        None
    }
}

/// Forecasts the weather.
#[tool]
fn forecast(
    /// The city.
    city: String,
    /// How many days ahead.
    days: Option<u8>,
) -> String {
    format!("{city}: sunny for {} days", days.unwrap_or(1))
}

/// Forecasts the weather; only found by a search.
#[tool(defer)]
fn deferred_forecast(city: String, days: Option<u8>) -> String {
    format!("{city}: rain for {} days", days.unwrap_or(1))
}

/// A tool whose argument is a recursive type: fine as JSON Schema, but Gemini has no `$ref`
/// and a recursive type cannot be inlined.
fn tree_tool(defer: Defer) -> DynamicTool {
    let schema = json!({
        "type": "object",
        "properties": { "tree": { "$ref": "#/$defs/Node" } },
        "required": ["tree"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } }
                }
            }
        }
    });
    DynamicTool::new("count_nodes", "Counts a tree's nodes.", schema, |_| async {
        "1"
    })
    .unwrap()
    .with_options(ToolOptions::new().with_defer(defer))
}

fn answer(text: &str) -> AssistantMessage {
    AssistantMessage::text(text)
}

#[tokio::test]
async fn each_model_is_offered_the_schemas_in_its_own_dialect() {
    let canonical = ForecastTool.definition().parameters.clone();
    for dialect in [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ] {
        let model = Recording::new(dialect, [answer("Done.")]);
        let mut tools = ToolRegistry::new();
        tools.register(ForecastTool).unwrap();
        let agent = ToolLoop::new(Arc::clone(&model), tools);
        let outcome = agent.run(&mut vec![Message::user("Weather?")]).await;
        assert!(
            matches!(outcome.status, LoopStatus::Answered(_)),
            "{dialect:?}"
        );
        let sent = model.offered(0, "forecast");
        assert_eq!(
            sent,
            lower("forecast", &canonical, dialect).unwrap(),
            "{dialect:?}"
        );
        match dialect {
            Dialect::OpenAiStrict => {
                assert_eq!(sent["required"], json!(["city", "days"]));
                assert_eq!(sent["additionalProperties"], json!(false));
            }
            Dialect::Gemini => {
                assert_eq!(sent["properties"]["days"]["nullable"], json!(true));
                assert!(sent["properties"]["days"]["type"].is_string(), "{sent}");
            }
            Dialect::AnthropicStrict => assert_eq!(sent["additionalProperties"], json!(false)),
            _ => assert_eq!(sent, canonical, "{dialect:?} takes the canonical schema"),
        }
    }
}

#[tokio::test]
async fn a_tool_the_dialect_cannot_take_stops_the_run_before_the_first_request() {
    // Deferred or not: a search could find it later, and the provider would then refuse the
    // request; the run stops before any.
    for defer in [Defer::Never, Defer::Always] {
        let model = Recording::new(Dialect::Gemini, [answer("never sent")]);
        let mut tools = ToolRegistry::new();
        tools.register(ForecastTool).unwrap();
        tools.register(tree_tool(defer)).unwrap();
        let agent = ToolLoop::new(Arc::clone(&model), tools);
        let outcome = agent.run(&mut vec![Message::user("Count.")]).await;
        let LoopStatus::DescribeFailed(error) = &outcome.status else {
            panic!(
                "{defer:?}: expected DescribeFailed, got {:?}",
                outcome.status
            );
        };
        let LoweringError::Unsupported {
            tool,
            dialect,
            pointer,
            rule,
        } = error
        else {
            panic!("{defer:?}: expected Unsupported, got {error:?}");
        };
        assert_eq!(tool, "count_nodes");
        assert_eq!(*dialect, Dialect::Gemini);
        assert!(pointer.starts_with("/properties/tree"), "{error}");
        assert!(rule.contains("recursive"), "{error}");
        assert_eq!(outcome.rounds, 0, "{defer:?}");
        assert!(
            model.requests().is_empty(),
            "{defer:?}: nothing may be sent"
        );
    }

    // The same tools in a dialect that keeps `$ref`s run.
    let model = Recording::new(Dialect::OpenAi, [answer("Done.")]);
    let mut tools = ToolRegistry::new();
    tools.register(tree_tool(Defer::Never)).unwrap();
    let outcome = ToolLoop::new(Arc::clone(&model), tools)
        .run(&mut vec![Message::user("Count.")])
        .await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
}

/// A provider whose one tool the test replaces, under the same name, between runs.
struct Swapping(Mutex<Arc<dyn Tool>>);

impl ToolProvider for Swapping {
    fn tools(&self) -> ProviderFuture<'_> {
        let tool = Arc::clone(&self.0.lock().unwrap());
        Box::pin(async move { vec![tool] })
    }
}

fn lookup(properties: Value) -> Arc<dyn Tool> {
    let schema = json!({"type": "object", "properties": properties});
    Arc::new(
        DynamicTool::new("lookup", "Looks a place up.", schema, |_| async { "found" }).unwrap(),
    )
}

#[tokio::test]
async fn a_tool_changed_under_the_same_name_is_lowered_anew() {
    let provider = Arc::new(Swapping(Mutex::new(lookup(
        json!({"city": {"type": "string"}}),
    ))));
    let model = Recording::new(Dialect::OpenAiStrict, [answer("One."), answer("Two.")]);
    let agent = ToolLoop::new(Arc::clone(&model), ToolRegistry::new())
        .with_provider(Arc::clone(&provider) as Arc<dyn ToolProvider>);

    let _ = agent.run(&mut vec![Message::user("First.")]).await;
    assert_eq!(model.offered(0, "lookup")["required"], json!(["city"]));

    *provider.0.lock().unwrap() = lookup(json!({
        "city": {"type": "string"},
        "country": {"type": "string"}
    }));
    let _ = agent.run(&mut vec![Message::user("Second.")]).await;
    let sent = model.offered(1, "lookup");
    assert_eq!(sent["required"], json!(["city", "country"]));
    assert_eq!(
        sent["properties"]["country"]["type"],
        json!(["string", "null"])
    );
}

#[tokio::test]
async fn deferred_tools_and_the_search_tool_are_offered_in_every_dialect() {
    let search = search_tool_definition();
    let canonical = DeferredForecastTool.definition().parameters.clone();
    for dialect in Dialect::ALL {
        if dialect == Dialect::Mcp {
            continue; // a host's dialect, not a chat model's
        }
        let model = Recording::new(
            dialect,
            [
                AssistantMessage::call(SEARCH_TOOL_NAME, r#"{"query": "weather forecast"}"#),
                AssistantMessage::call("deferred_forecast", r#"{"city": "Oslo", "days": null}"#),
                answer("Rain in Oslo."),
            ],
        );
        let mut tools = ToolRegistry::new();
        tools.register(DeferredForecastTool).unwrap();
        let agent = ToolLoop::new(Arc::clone(&model), tools);
        let mut conversation = vec![Message::user("Weather in Oslo?")];
        let outcome = agent.run(&mut conversation).await;
        assert!(
            matches!(outcome.status, LoopStatus::Answered(_)),
            "{dialect:?}: {:?}",
            outcome.status
        );
        assert_eq!(
            model.offered(0, SEARCH_TOOL_NAME),
            lower(SEARCH_TOOL_NAME, &search.parameters, dialect).unwrap(),
            "{dialect:?}"
        );
        assert_eq!(
            model.offered(1, "deferred_forecast"),
            lower("deferred_forecast", &canonical, dialect).unwrap(),
            "{dialect:?}"
        );
        // The `null` a strict model sends for an optional argument is the argument left out.
        let Some(Message::Tool(result)) = conversation.iter().rev().nth(1) else {
            panic!("{dialect:?}: no tool result before the answer: {conversation:?}");
        };
        assert_eq!(result.content, "Oslo: rain for 1 days", "{dialect:?}");
    }
}
