//! What the loop tells the outside: its observers, and the conversation kept in a chat memory
//! (its tracing spans are checked in `run_spans.rs`).

use std::sync::{Arc, Mutex};

use tool_sdk::define::ToolResult;
use tool_sdk::run::{event_fn, LoopEvent, LoopStatus, Observer, ToolLoop};
use tool_sdk::store::{ChatMemory, InMemoryChatMemory, StoreError, StoreFuture};
use tool_sdk::{model::check_conversation, Message, ToolCall};
use tool_sdk_tests::add::{registry, script};

/// Writes down each call as it starts and as it ends.
#[derive(Default)]
struct Watch(Mutex<Vec<String>>);

impl Observer for Watch {
    fn call_started(&self, key: &str, call: &ToolCall) {
        let line = format!("started {key} {} {}", call.name, call.arguments);
        self.0.lock().unwrap().push(line);
    }

    fn call_finished(&self, key: &str, call: &ToolCall, result: &ToolResult) {
        let output = result
            .as_ref()
            .map(|o| o.content().to_owned())
            .unwrap_or_default();
        let line = format!("finished {key} {} = {output}", call.name);
        self.0.lock().unwrap().push(line);
    }
}

#[tokio::test]
async fn an_observer_sees_every_call_as_it_starts_and_ends() {
    let watch = Arc::new(Watch::default());
    let agent = ToolLoop::new(script(), registry()).with_observer(Arc::clone(&watch));
    let mut conversation = vec![Message::user("1 + 2?")];
    let _ = agent.run(&mut conversation).await;
    assert_eq!(
        *watch.0.lock().unwrap(),
        [
            r#"started call_9 add {"a":1,"b":2}"#,
            "finished call_9 add = 3"
        ]
    );
}

/// Observers are told in the order they were added, and each is told every step once.
#[tokio::test]
async fn observers_stack_in_the_order_they_were_added() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (first, second) = (Arc::clone(&seen), Arc::clone(&seen));
    let agent = ToolLoop::new(script(), registry())
        .with_observer(event_fn(move |event: &LoopEvent| {
            first.lock().unwrap().push(format!("1 {event:?}"));
        }))
        .with_observer(event_fn(move |event: &LoopEvent| {
            second.lock().unwrap().push(format!("2 {event:?}"));
        }));
    let mut conversation = vec![Message::user("1 + 2?")];
    let _ = agent.run(&mut conversation).await;
    let seen = seen.lock().unwrap();
    let order: Vec<&str> = seen.iter().map(|line| &line[..1]).collect();
    assert_eq!(order, ["1", "2", "1", "2", "1", "2", "1", "2"], "{seen:#?}");
    assert!(seen[0].contains("ModelCalled { round: 1 }"), "{seen:#?}");
    assert!(seen[2].contains("ToolStarted"), "{seen:#?}");
    assert!(seen[4].contains("ToolFinished"), "{seen:#?}");
    assert!(seen[6].contains("ModelCalled { round: 2 }"), "{seen:#?}");
}

#[tokio::test]
async fn a_conversation_lives_in_chat_memory_between_runs() {
    let memory = InMemoryChatMemory::new();
    let agent = ToolLoop::new(script(), registry());
    let outcome = agent.run("1 + 2?").with_memory(&memory, "ana").await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert!(outcome.store_error.is_none());
    let stored = memory.load("ana").await.unwrap();
    assert_eq!(stored.len(), 4);
    check_conversation(&stored).unwrap();

    // The next run goes on from there; a conversation the caller holds ends as the whole.
    let agent = ToolLoop::new(script(), registry());
    let mut held = vec![Message::user("and again?")];
    let outcome = agent.run(&mut held).with_memory(&memory, "ana").await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(held.len(), 8);
    assert_eq!(held[..4], stored[..]);
    assert_eq!(held[4], Message::user("and again?"));
    assert_eq!(memory.load("ana").await.unwrap(), held);
}

/// A memory whose loads or stores fail.
struct Broken {
    load: bool,
}

impl ChatMemory for Broken {
    fn load<'a>(&'a self, _: &'a str) -> StoreFuture<'a, Vec<Message>> {
        let failed = self.load;
        Box::pin(async move {
            if failed {
                Err(StoreError::Backend("the disk is gone".into()))
            } else {
                Ok(Vec::new())
            }
        })
    }

    fn store<'a>(&'a self, _: &'a str, _: &'a [Message]) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::Backend("the disk is full".into())) })
    }
}

#[tokio::test]
async fn a_memory_that_fails_is_reported_and_loses_nothing() {
    // Not loaded: nothing runs, and the caller keeps the prompt.
    let agent = ToolLoop::new(script(), registry());
    let mut held = vec![Message::user("1 + 2?")];
    let outcome = agent
        .run(&mut held)
        .with_memory(&Broken { load: true }, "ana")
        .await;
    assert!(
        matches!(outcome.status, LoopStatus::StoreFailed)
            && matches!(&outcome.store_error, Some(StoreError::Backend(m)) if m.contains("gone")),
        "{:?} {:?}",
        outcome.status,
        outcome.store_error
    );
    assert_eq!(outcome.rounds, 0);
    assert_eq!(held, [Message::user("1 + 2?")]);

    // Not stored: the run ran, the caller has the whole conversation, and the outcome says
    // what was not kept.
    let outcome = agent
        .run(&mut held)
        .with_memory(&Broken { load: false }, "ana")
        .await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert!(
        matches!(&outcome.store_error, Some(StoreError::Backend(m)) if m.contains("full")),
        "{:?}",
        outcome.store_error
    );
    assert_eq!(held.len(), 4);
}
