//! Streaming: a tool starts as soon as its call is complete in the stream, and the run ends as
//! the non-streaming run does.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::{self, StreamExt as _};
use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus, ToolLoop};
use tool_sdk::{
    define_tool,
    model::{check_conversation, ChatDelta, ChatRequest, ChatResponse, ChatStream, ModelFuture},
    AssistantMessage, ChatModel, Message, ScriptedModel, ToolCall, ToolRegistry,
};

type Timeline = Arc<Mutex<Vec<String>>>;

/// Streams one reply of two calls, noting on the timeline when it sends each piece; then
/// answers.
struct Narrating(Timeline);

impl ChatModel for Narrating {
    fn chat<'a>(&'a self, _request: ChatRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async { Ok(ChatResponse::new(AssistantMessage::default())) })
    }

    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        let timeline = Arc::clone(&self.0);
        if request.messages.len() > 1 {
            let answer = ChatDelta::Text("done".into());
            return Some(Box::pin(stream::iter([Ok(answer)])));
        }
        let pieces = [
            ToolCall::new("a", "note", r#"{"text":"first"}"#),
            ToolCall::new("b", "note", r#"{"text":"second"}"#),
        ];
        Some(Box::pin(stream::iter(pieces).then(move |call| {
            let timeline = Arc::clone(&timeline);
            async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                timeline
                    .lock()
                    .unwrap()
                    .push(format!("stream {}", call.id.as_deref().unwrap_or("")));
                Ok(ChatDelta::ToolCall(call))
            }
        })))
    }
}

fn note_tool(timeline: &Timeline) -> ToolRegistry {
    let log = Arc::clone(timeline);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Notes a text.
            #[tool(name = "note")]
            move |text: String| {
                log.lock().unwrap().push(format!("run {text}"));
                text
            }
        ))
        .unwrap();
    registry
}

#[tokio::test]
async fn a_tool_starts_while_the_rest_of_the_reply_streams() {
    let timeline = Timeline::default();
    let agent = ToolLoop::new(Narrating(Arc::clone(&timeline)), note_tool(&timeline));
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(
        *timeline.lock().unwrap(),
        ["stream a", "run first", "stream b", "run second"],
        "the first call ran before the second arrived"
    );
    check_conversation(&conversation).unwrap();
}

fn replies() -> Vec<AssistantMessage> {
    vec![
        AssistantMessage {
            text: Some("Let me note these.".into()),
            tool_calls: vec![
                ToolCall::new("a", "note", r#"{"text":"one"}"#),
                ToolCall::new("b", "note", r#"{"text":"two"}"#),
                ToolCall::new("c", "nope", "{}"),
            ],
        },
        AssistantMessage::with_tool_calls(vec![ToolCall::new("d", "note", r#"{"text":"three"}"#)]),
        AssistantMessage {
            text: Some("Noted.".into()),
            tool_calls: vec![],
        },
    ]
}

#[tokio::test]
async fn a_streamed_run_ends_as_the_plain_run_does() {
    for concurrency in [Concurrency::Sequential, Concurrency::Bounded(4)] {
        let options = LoopOptions::default().with_concurrency(concurrency);
        let timeline = Timeline::default();
        let plain = ToolLoop::new(ScriptedModel::new(replies()), note_tool(&timeline))
            .with_options(options.clone());
        let mut plain_conversation = vec![Message::user("go")];
        let _ = plain.run(&mut plain_conversation).await;

        let streamed = ToolLoop::new(
            ScriptedModel::new(replies()).with_stream_gap(Duration::from_millis(1)),
            note_tool(&timeline),
        )
        .with_options(options);
        let mut streamed_conversation = vec![Message::user("go")];
        let outcome = streamed.run(&mut streamed_conversation).await;
        assert!(matches!(outcome.status, LoopStatus::Answered(_)));
        assert_eq!(streamed_conversation, plain_conversation, "{concurrency:?}");
        check_conversation(&streamed_conversation).unwrap();
    }
}
