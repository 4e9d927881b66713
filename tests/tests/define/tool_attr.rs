//! `#[tool]` on free functions: names, descriptions, parameters, context, results, errors.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_sdk::run::CancellationToken;
use tool_sdk::{
    define::{CallId, State, ToolName},
    tool, Tool, ToolContext, ToolError, ToolRegistry,
};

/// Adds two numbers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Echoes a greeting.
#[tool(name = "say_hello")]
async fn greet(name: &str, #[arg(default = 1)] times: u32, excited: Option<bool>) -> String {
    let mark = if excited.unwrap_or(false) { "!" } else { "." };
    format!("Hello, {name}{mark}").repeat(times as usize)
}

#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Moves a point to the right.
#[tool]
fn translate(point: Point, #[arg(rename = "dx")] delta_x: f64) -> Result<Point, String> {
    if delta_x > 1000.0 {
        return Err(format!("a move of {delta_x} is too far"));
    }
    Ok(Point {
        x: point.x + delta_x,
        y: point.y,
    })
}

#[tool(description = "Does nothing, successfully.")]
fn noop() {}

/// Returns its input unchanged.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Sums a list.
#[tool]
async fn sum(values: &[i64]) -> Result<i64, std::num::TryFromIntError> {
    let total: i128 = values.iter().map(|v| i128::from(*v)).sum();
    i64::try_from(total)
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Reads a thermometer.
#[tool]
fn thermometer(unit: Unit) -> String {
    match unit {
        Unit::Celsius => "21 C".into(),
        Unit::Fahrenheit => "70 F".into(),
    }
}

/// Panics, as buggy tools do.
#[tool]
fn explode(#[arg(default)] reason: String) -> String {
    panic!("boom: {reason}")
}

/// Never finishes in time.
#[tool(timeout = "50ms")]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "too late".into()
}

struct Counter {
    calls: AtomicUsize,
}

/// Reports who is calling.
#[tool]
fn whoami(
    #[context] id: CallId,
    #[context] name: ToolName,
    #[context] cancel: CancellationToken,
    #[context] counter: State<Counter>,
) -> String {
    let n = counter.calls.fetch_add(1, Ordering::SeqCst);
    format!("{:?} {} {} {n}", id.0, name.0, cancel.is_cancelled())
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry
        .register(AddTool)
        .and_then(|r| r.register(GreetTool))
        .and_then(|r| r.register(TranslateTool))
        .and_then(|r| r.register(NoopTool))
        .and_then(|r| r.register(EchoTool))
        .and_then(|r| r.register(SumTool))
        .and_then(|r| r.register(ThermometerTool))
        .and_then(|r| r.register(ExplodeTool))
        .and_then(|r| r.register(SlowTool))
        .and_then(|r| r.register(WhoamiTool))
        .expect("all tools register");
    registry.insert_state(Counter {
        calls: AtomicUsize::new(0),
    });
    registry
}

async fn content(registry: &ToolRegistry, name: &str, arguments: &str) -> String {
    match registry.call(name, arguments).await {
        Ok(output) => output.into_content(),
        Err(error) => panic!("{name}({arguments}) failed: {error}"),
    }
}

#[tokio::test]
async fn results_follow_the_return_type() {
    let registry = registry();
    // A String passes through untouched (no JSON quoting).
    assert_eq!(
        content(&registry, "echo", r#"{"text":"a \"b\""}"#).await,
        r#"a "b""#
    );
    // `()` becomes "Success".
    assert_eq!(content(&registry, "noop", "{}").await, "Success");
    // Any other Serialize becomes JSON text.
    assert_eq!(content(&registry, "add", r#"{"a":2,"b":3}"#).await, "5");
    let moved = content(
        &registry,
        "translate",
        r#"{"point":{"x":1,"y":2},"dx":0.5}"#,
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Point>(&moved).unwrap(),
        Point { x: 1.5, y: 2.0 }
    );
    // Async functions, Result included.
    assert_eq!(
        content(&registry, "sum", r#"{"values":[1,2,3]}"#).await,
        "6"
    );
    assert_eq!(
        content(
            &registry,
            "say_hello",
            r#"{"name":"Ana","times":2,"excited":true}"#
        )
        .await,
        "Hello, Ana!Hello, Ana!"
    );
    let output = registry.call("add", r#"{"a":1,"b":1}"#).await.unwrap();
    assert!(output.is_json());
    assert!(!registry
        .call("echo", r#"{"text":"x"}"#)
        .await
        .unwrap()
        .is_json());
}

#[tokio::test]
async fn an_err_becomes_an_execution_failure_with_its_message() {
    let error = registry()
        .call("translate", r#"{"point":{"x":1,"y":2},"dx":5000}"#)
        .await
        .unwrap_err();
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    // A tool's own failure rolls the run back by default, as the loop's error policy says.
    assert!(!error.is_recoverable());
    assert_eq!(error.model_message(), "Error: a move of 5000 is too far");
}

#[tokio::test]
async fn optional_and_default_parameters_may_be_left_out() {
    let registry = registry();
    assert_eq!(
        content(&registry, "say_hello", r#"{"name":"Bo"}"#).await,
        "Hello, Bo."
    );
    assert_eq!(
        content(&registry, "say_hello", r#"{"name":"Bo","excited":null}"#).await,
        "Hello, Bo."
    );
}

#[tokio::test]
async fn enums_decode_through_their_serde_representation() {
    let registry = registry();
    assert_eq!(
        content(&registry, "thermometer", r#"{"unit":"fahrenheit"}"#).await,
        "70 F"
    );
    let error = registry
        .call("thermometer", r#"{"unit":"kelvin"}"#)
        .await
        .unwrap_err();
    let ToolError::InvalidArguments { problem, .. } = &error else {
        panic!("expected invalid arguments, got {error:?}");
    };
    assert_eq!(problem.pointer, "/unit");
    assert!(problem.expected.contains("`celsius`"), "{problem:?}");
}

#[tokio::test]
async fn context_parameters_come_from_the_call_not_the_arguments() {
    let registry = registry();
    let token = CancellationToken::new();
    token.cancel();
    let context = ToolContext::new()
        .with_call_id("call_7")
        .with_cancellation(&token);
    let first = registry.call_with("whoami", "{}", context).await.unwrap();
    assert_eq!(first.content(), r#"Some("call_7") whoami true 0"#);
    let second = registry.call("whoami", "").await.unwrap();
    assert_eq!(second.content(), "None whoami false 1");
    // Context parameters are not arguments: the model cannot pass them.
    let error = registry
        .call("whoami", r#"{"id":"forged"}"#)
        .await
        .unwrap_err();
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
    assert_eq!(WhoamiTool.definition().parameters["properties"], json!({}));
}

#[tokio::test]
async fn missing_state_is_a_classified_error() {
    let mut bare = ToolRegistry::new();
    bare.register(WhoamiTool).unwrap();
    let error = bare.call("whoami", "{}").await.unwrap_err();
    assert!(
        matches!(error, ToolError::MissingContext { .. }),
        "{error:?}"
    );
    assert!(!error.is_recoverable());
    assert!(error.to_string().contains("Counter"), "{error}");
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_and_the_registry_lives_on() {
    let registry = registry();
    let error = registry
        .call("explode", r#"{"reason":"bug"}"#)
        .await
        .unwrap_err();
    assert!(matches!(&error, ToolError::Panicked { message, .. } if message == "boom: bug"));
    assert!(
        !error.model_message().contains("boom"),
        "panic details stay out of the model's view"
    );
    assert_eq!(content(&registry, "add", r#"{"a":1,"b":2}"#).await, "3");
}

#[tokio::test]
async fn a_declared_timeout_stops_the_call() {
    let error = registry().call("slow", "{}").await.unwrap_err();
    assert!(
        matches!(error, ToolError::TimedOut { after, .. } if after == Duration::from_millis(50)),
        "{error:?}"
    );
    assert_eq!(
        SlowTool.definition().options.timeout,
        Some(Duration::from_millis(50))
    );
}

#[tokio::test]
async fn bad_arguments_get_classified_errors() {
    let registry = registry();
    let refused = |arguments: &'static str| {
        let registry = &registry;
        async move { registry.call("add", arguments).await.unwrap_err() }
    };
    assert!(matches!(
        refused(r#"{"a":1,"b":"two"}"#).await,
        ToolError::InvalidArguments { .. }
    ));
    assert!(matches!(
        refused(r#"{"a":1}"#).await,
        ToolError::InvalidArguments { .. }
    ));
    assert!(matches!(
        refused(r#"{"a":1,"b":2,"c":3}"#).await,
        ToolError::InvalidArguments { .. }
    ));
    assert!(matches!(
        refused("[1, 2]").await,
        ToolError::ArgumentsNotObject { .. }
    ));
    assert!(matches!(
        refused(r#"{"a":1,"b":"#).await,
        ToolError::MalformedArguments { .. }
    ));

    let error = registry
        .call("add", r#"{"a":1,"b":"two"}"#)
        .await
        .unwrap_err();
    let ToolError::InvalidArguments { problem, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(problem.pointer, "/b");
    assert_eq!(problem.expected, "i64");
    assert_eq!(problem.found.as_deref(), Some(r#"string "two""#));
    assert!(!error.to_string().contains("line 1"), "{error}");
}

#[tokio::test]
async fn oversized_arguments_are_refused_before_parsing() {
    let mut registry = ToolRegistry::new().with_max_arguments_bytes(64);
    registry.register(EchoTool).unwrap();
    let long = format!(r#"{{"text":"{}"}}"#, "x".repeat(100));
    let error = registry.call("echo", &long).await.unwrap_err();
    assert!(
        matches!(error, ToolError::ArgumentsTooLarge { limit: 64, .. }),
        "{error:?}"
    );

    // The default limit is 1 MiB.
    let registry = self::registry();
    let huge = format!(
        r#"{{"text":"{}"}}"#,
        "x".repeat(tool_sdk::define::DEFAULT_MAX_ARGUMENTS_BYTES)
    );
    let error = registry.call("echo", &huge).await.unwrap_err();
    assert!(
        matches!(error, ToolError::ArgumentsTooLarge { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn deeply_nested_arguments_are_refused_not_a_crash() {
    let deep = format!(
        r#"{{"text":{}1{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let error = registry().call("echo", &deep).await.unwrap_err();
    assert!(
        matches!(error, ToolError::ArgumentsTooDeep { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn unknown_tools_suggest_the_closest_names() {
    let error = registry().call("ad", "{}").await.unwrap_err();
    let ToolError::UnknownTool { name, suggestions } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(name, "ad");
    assert_eq!(suggestions.first().map(String::as_str), Some("add"));
    assert!(suggestions.len() <= 3);
    assert!(error.model_message().contains("`add`"));
    let error = registry()
        .call("completely_unrelated_name", "{}")
        .await
        .unwrap_err();
    assert!(matches!(&error, ToolError::UnknownTool { suggestions, .. } if suggestions.is_empty()));
}

#[test]
fn names_and_descriptions_come_from_the_signature_or_the_attribute() {
    let add = AddTool.definition();
    assert_eq!(add.name, "add");
    assert_eq!(add.description, "Adds two numbers.");
    assert_eq!(
        add.parameters["properties"]["a"]["description"],
        "The first addend."
    );
    let greet = GreetTool.definition();
    assert_eq!(greet.name, "say_hello");
    assert_eq!(greet.parameters["properties"]["times"]["default"], 1);
    assert_eq!(
        NoopTool.definition().description,
        "Does nothing, successfully."
    );
    assert_eq!(
        TranslateTool.definition().parameters["required"],
        json!(["point", "dx"])
    );
}

#[test]
fn a_definition_is_built_once() {
    assert!(std::ptr::eq(AddTool.definition(), AddTool.definition()));
    let registry = registry();
    let from_registry = registry.get("add").unwrap().definition();
    assert!(std::ptr::eq(from_registry, AddTool.definition()));
}

#[tokio::test]
async fn annotated_functions_stay_callable_as_written() {
    assert_eq!(add(1, 2), 3);
    assert_eq!(greet("Cy", 1, None).await, "Hello, Cy.");
    assert_eq!(sum(&[1, 2]).await.unwrap(), 3);
    noop();
}

#[test]
fn duplicate_and_invalid_names_are_refused_at_registration() {
    let mut registry = ToolRegistry::new();
    registry.register(AddTool).unwrap();
    let error = registry.register(AddTool).unwrap_err();
    assert_eq!(
        error,
        tool_sdk::register::RegistryError::DuplicateName("add".into())
    );
    assert_eq!(registry.names().collect::<Vec<_>>(), ["add"]);
}

#[test]
fn definitions_keep_insertion_order() {
    let names: Vec<_> = registry().names().map(str::to_owned).collect();
    assert_eq!(
        names,
        [
            "add",
            "say_hello",
            "translate",
            "noop",
            "echo",
            "sum",
            "thermometer",
            "explode",
            "slow",
            "whoami"
        ]
    );
}

/// Books a table.
///
/// Only for parties of up to eight;
///  -  larger ones call the restaurant.
#[tool]
fn book_table(
    /// How many people.
    ///
    /// Eight at most.
    party: u8,
) -> String {
    format!("table for {party}")
}

#[test]
fn a_blank_doc_line_keeps_its_paragraph_break() {
    let definition = BookTableTool.definition();
    assert_eq!(
        definition.description,
        "Books a table.\n\nOnly for parties of up to eight;\n -  larger ones call the restaurant."
    );
    assert_eq!(
        definition.parameters["properties"]["party"]["description"],
        "How many people.\n\nEight at most."
    );
}
