//! Hostile input: each case ends in a classified error or a correct outcome, never a crash or a
//! hang (a tool that never returns and cancellation at every step, in `compensate_loop.rs`,
//! lose no compensation).

use serde_json::json;
use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{
    define::ToolError,
    model::check_conversation,
    register::{DynamicTool, RegistryError},
    tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry,
};

/// Echoes a text.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new().with_max_arguments_bytes(16 << 20);
    registry.register(EchoTool).unwrap();
    registry.register(AddTool).unwrap();
    let schema =
        json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]});
    let dynamic = DynamicTool::new(
        "measure",
        "Echoes x.",
        schema,
        |v: serde_json::Value| async move { tool_sdk::define::Json(v) },
    )
    .unwrap();
    registry.register(dynamic).unwrap();
    registry
}

async fn call(registry: &ToolRegistry, name: &str, arguments: &str) -> Result<String, ToolError> {
    registry
        .call(name, arguments)
        .await
        .map(|o| o.into_content())
}

#[tokio::test]
async fn ten_mebibytes_of_arguments_are_decoded_or_refused_by_the_limit() {
    let big = format!(r#"{{"text":"{}"}}"#, "x".repeat(10 << 20));
    assert_eq!(
        call(&registry(), "echo", &big).await.unwrap().len(),
        10 << 20
    );
    let mut limited = ToolRegistry::new();
    limited.register(EchoTool).unwrap();
    assert!(matches!(
        call(&limited, "echo", &big).await,
        Err(ToolError::ArgumentsTooLarge { .. })
    ));
}

#[tokio::test]
async fn nesting_ten_thousand_deep_is_refused_for_typed_and_dynamic_tools() {
    let deep = format!(
        r#"{{"text":{}"x"{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(matches!(
        call(&registry(), "echo", &deep).await,
        Err(ToolError::ArgumentsTooDeep { .. })
    ));
    let deep = format!(
        r#"{{"x":{}1{}}}"#,
        "{\"a\":".repeat(10_000),
        "}".repeat(10_000)
    );
    assert!(matches!(
        call(&registry(), "measure", &deep).await,
        Err(ToolError::ArgumentsTooDeep { .. })
    ));
}

#[tokio::test]
async fn lone_surrogates_and_bad_escapes_are_malformed_arguments() {
    let registry = registry();
    for text in [
        r#"{"text":"\ud800"}"#,
        r#"{"text":"\udc00x"}"#,
        r#"{"text":"\x"}"#,
        "{\"text\":\"\u{0}\"}",
    ] {
        assert!(
            matches!(
                call(&registry, "echo", text).await,
                Err(ToolError::MalformedArguments { .. })
            ),
            "{text:?}"
        );
    }
    // A valid surrogate pair is fine.
    assert_eq!(
        call(&registry, "echo", r#"{"text":"\ud83d\ude00"}"#)
            .await
            .unwrap(),
        "😀"
    );
}

#[tokio::test]
async fn nan_infinity_and_huge_numbers_are_classified() {
    let registry = registry();
    assert!(matches!(
        call(&registry, "add", r#"{"a":NaN,"b":1}"#).await,
        Err(ToolError::MalformedArguments { .. })
    ));
    assert!(matches!(
        call(&registry, "add", r#"{"a":1e400,"b":1}"#).await,
        Err(ToolError::MalformedArguments { .. })
    ));
    assert!(matches!(
        call(&registry, "add", r#"{"a":99999999999999999999,"b":1}"#).await,
        Err(ToolError::InvalidArguments { .. })
    ));
    assert!(matches!(
        call(&registry, "add", r#"{"a":1.5,"b":1}"#).await,
        Err(ToolError::InvalidArguments { .. })
    ));
    assert!(matches!(
        call(&registry, "measure", r#"{"x":-Infinity}"#).await,
        Err(ToolError::MalformedArguments { .. })
    ));
}

#[tokio::test]
async fn duplicate_keys_are_refused_for_typed_tools() {
    assert!(matches!(
        call(&registry(), "add", r#"{"a":1,"a":2,"b":3}"#).await,
        Err(ToolError::InvalidArguments { .. })
    ));
}

/// Tags a record; parameters that take objects of any keys.
#[tool]
fn tag(
    meta: Option<serde_json::Value>,
    labels: Option<std::collections::HashMap<String, String>>,
    items: Option<Vec<serde_json::Value>>,
) -> String {
    format!("{meta:?} {labels:?} {items:?}")
}

/// Below the arguments object, a typed tool's `Value`, map and array parameters would keep
/// the last of two keys: refused at every depth, with the dynamic tool's error and pointer.
#[tokio::test]
async fn duplicate_keys_below_the_top_are_refused_for_typed_tools_as_for_dynamic_ones() {
    let mut registry = registry();
    registry.register(TagTool).unwrap();
    let schema = json!({"type": "object"});
    let read = DynamicTool::new("read", "Reads a file.", schema, |_| async { "read" }).unwrap();
    registry.register(read).unwrap();
    for (arguments, pointer) in [
        (r#"{"meta":{"owner":"ana","owner":"root"}}"#, "/meta/owner"),
        (r#"{"labels":{"team":"a","team":"b"}}"#, "/labels/team"),
        (r#"{"items":[{"id":1},{"id":2,"id":3}]}"#, "/items/1/id"),
    ] {
        let typed = registry.call("tag", arguments).await.unwrap_err();
        let dynamic = registry.call("read", arguments).await.unwrap_err();
        assert!(
            matches!(typed, ToolError::InvalidArguments { .. }),
            "{typed}"
        );
        assert_eq!(
            typed.model_message(),
            dynamic.model_message().replace("`read`", "`tag`"),
            "{arguments}"
        );
        assert!(typed.model_message().contains(pointer), "{typed}");
    }
    assert!(registry
        .call(
            "tag",
            r#"{"meta":{"owner":"ana"},"items":[{"id":1},{"id":1}]}"#
        )
        .await
        .is_ok());
}

/// A dynamic tool decodes into a `serde_json::Value`, where an integer beyond 64 bits becomes
/// the nearest float: the tool would run with a number other than the one approved.
#[tokio::test]
async fn a_dynamic_tool_never_receives_a_number_other_than_the_one_written() {
    let registry = registry();
    let error = registry
        .call("measure", r#"{"x":18446744073709551617}"#)
        .await
        .unwrap_err();
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
    assert!(error.model_message().contains("/x"), "{error}");
    assert!(
        error.model_message().contains("18446744073709551617"),
        "{error}"
    );
    assert_eq!(
        call(&registry, "measure", r#"{"x":18446744073709551615}"#)
            .await
            .unwrap(),
        r#"{"x":18446744073709551615}"#
    );
    assert_eq!(
        call(&registry, "measure", r#"{"x":2.5e-3}"#).await.unwrap(),
        r#"{"x":0.0025}"#
    );
}

/// A key named twice may be read with its first value by the person deciding (or a log) and
/// with its last by the tool: what was approved would not be what runs. A dynamic tool refuses
/// it, at any depth, with the error a typed tool gives.
#[tokio::test]
async fn duplicate_keys_are_refused_for_dynamic_tools_as_for_typed_ones() {
    let mut registry = registry();
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let read = DynamicTool::new("read", "Reads a file.", schema, |_| async { "read" }).unwrap();
    registry.register(read).unwrap();
    let twice = r#"{"text":"notes.txt","text":"/"}"#;
    let typed = registry.call("echo", twice).await.unwrap_err();
    let dynamic = registry.call("read", twice).await.unwrap_err();
    assert!(
        matches!(dynamic, ToolError::InvalidArguments { .. }),
        "{dynamic:?}"
    );
    assert_eq!(
        dynamic.model_message(),
        typed.model_message().replace("`echo`", "`read`")
    );
    let message = dynamic.model_message();
    assert!(message.contains("/text"), "{message}");
    assert!(message.contains("each field once"), "{message}");
    assert!(message.contains("`text` twice"), "{message}");

    let nested = r#"{"text":"a","meta":{"k":1,"k":2}}"#;
    let error = registry.call("read", nested).await.unwrap_err();
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
    assert!(error.model_message().contains("/meta/k"), "{error}");
    // Each key once: runs.
    assert_eq!(
        call(&registry, "read", r#"{"text":"notes.txt"}"#)
            .await
            .unwrap(),
        "read"
    );
}

#[tokio::test]
async fn tool_names_with_control_characters_are_unknown_and_unregistrable() {
    let registry = registry();
    for name in ["add\0", "ad\nd", "\u{7f}echo", "echo\u{202e}"] {
        assert!(
            matches!(
                call(&registry, name, "{}").await,
                Err(ToolError::UnknownTool { .. })
            ),
            "{name:?}"
        );
        let tool = DynamicTool::new(name, "d", json!({"type": "object"}), |_| async { "" });
        assert!(
            matches!(tool, Err(RegistryError::InvalidName { .. })),
            "{name:?}"
        );
    }
}

#[tokio::test]
async fn a_name_longer_than_the_rule_is_unknown_without_suggestions_or_an_echo() {
    // Contains a registered name, so a search would suggest it; the rule refuses it first.
    let hostile = "echo".repeat(50_000);
    let error = registry().call(&hostile, "{}").await.unwrap_err();
    let tool_sdk::ToolError::UnknownTool { name, suggestions } = &error else {
        panic!("not an unknown tool: {error:?}");
    };
    assert!(suggestions.is_empty(), "{suggestions:?}");
    // What goes back to the model names the call without repeating 200 kB of it.
    assert!(
        name.starts_with("echoecho") && name.len() <= 80,
        "{}",
        name.len()
    );
    assert!(error.model_message().len() < 200);
    // A name within the rule still gets its suggestions.
    let error = registry().call("ech", "{}").await.unwrap_err();
    assert!(error.model_message().contains("`echo`"), "{error}");
}

#[tokio::test]
async fn a_reply_of_a_thousand_calls_is_answered_call_by_call() {
    for concurrency in [Concurrency::Sequential, Concurrency::Bounded(16)] {
        let model = ScriptedModel::new(model_replies());
        let agent = ToolLoop::new(model, registry())
            .with_options(LoopOptions::default().with_concurrency(concurrency));
        let mut conversation = vec![Message::user("go")];
        let outcome = agent.run(&mut conversation).await;
        assert!(matches!(outcome.status, LoopStatus::Answered(_)));
        check_conversation(&conversation).unwrap();
        let Message::Tool(last) = &conversation[1001] else {
            panic!()
        };
        assert_eq!(last.content, "1000");
    }
}

fn model_replies() -> Vec<AssistantMessage> {
    vec![
        AssistantMessage::with_tool_calls(
            (0..1000)
                .map(|i| ToolCall::new(format!("c{i}"), "add", format!(r#"{{"a":{i},"b":1}}"#)))
                .collect(),
        ),
        AssistantMessage {
            text: Some("done".into()),
            tool_calls: vec![],
        },
    ]
}
