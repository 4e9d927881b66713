//! What the loop tells the outside: hooks, events, and the conversation kept in a chat memory
//! (its tracing spans are checked in `run_spans.rs`).

use std::sync::{Arc, Mutex};

use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::{model::check_conversation, store::InMemoryChatMemory, Message};
use tool_sdk_tests::add::{registry, script};

#[tokio::test]
async fn hooks_see_every_call_before_and_after() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (before, after) = (Arc::clone(&seen), Arc::clone(&seen));
    let agent = ToolLoop::new(script(), registry())
        .with_before_tool(move |call| before.lock().unwrap().push(format!("before {}", call.name)))
        .with_after_tool(move |call, result| {
            let output = result
                .as_ref()
                .map(|o| o.content().to_owned())
                .unwrap_or_default();
            after
                .lock()
                .unwrap()
                .push(format!("after {} = {output}", call.name));
        });
    let mut conversation = vec![Message::user("1 + 2?")];
    agent.run(&mut conversation).await;
    assert_eq!(*seen.lock().unwrap(), ["before add", "after add = 3"]);
}

#[tokio::test]
async fn a_conversation_lives_in_chat_memory_between_runs() {
    let memory = InMemoryChatMemory::new();
    let agent = ToolLoop::new(script(), registry());
    let outcome = agent
        .run_with_memory(&memory, "ana", Message::user("1 + 2?"))
        .await
        .unwrap();
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    let stored = tool_sdk::store::ChatMemory::load(&memory, "ana")
        .await
        .unwrap();
    assert_eq!(stored.len(), 4);
    check_conversation(&stored).unwrap();
}
