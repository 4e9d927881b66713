//! Resuming a paused run checks the decisions against the copy the store kept before taking
//! it: a resume that is refused leaves the genuine run resumable.

use std::sync::{Arc, Mutex};

use tool_sdk::durable::{InMemoryRunStore, RunStore, SqliteStore};
use tool_sdk::gate::{DecisionError, ResumeError};
use tool_sdk::run::{LoopStatus, PausedRun, ToolLoop};
use tool_sdk::{
    define_tool, AssistantMessage, CancellationToken, Message, ScriptedModel, ToolCall,
    ToolRegistry,
};

type Timeline = Arc<Mutex<Vec<String>>>;

fn tools(timeline: &Timeline) -> ToolRegistry {
    let log = Arc::clone(timeline);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Sends money.
            #[tool(name = "transfer", confirm)]
            move |to: String| -> String {
                log.lock().unwrap().push(format!("transfer to {to}"));
                "sent".to_owned()
            }
        ))
        .unwrap();
    registry
}

fn agent(timeline: &Timeline, store: Arc<dyn RunStore>) -> ToolLoop {
    let model = ScriptedModel::new([
        AssistantMessage::with_tool_calls(vec![ToolCall::new("t", "transfer", r#"{"to": "ana"}"#)]),
        AssistantMessage {
            text: Some("sent".into()),
            tool_calls: vec![],
        },
    ]);
    ToolLoop::new(model, tools(timeline)).with_store(store)
}

/// The paused run with its call's arguments edited, as a caller holding a copy could.
fn edited(paused: &PausedRun) -> PausedRun {
    let mut value = serde_json::to_value(paused).unwrap();
    let text = serde_json::to_string(&value)
        .unwrap()
        .replace(r#"{\"to\": \"ana\"}"#, r#"{\"to\": \"mallory\"}"#);
    value = serde_json::from_str(&text).unwrap();
    let forged: PausedRun = serde_json::from_value(value).unwrap();
    assert_ne!(
        forged.turn().reply(),
        paused.turn().reply(),
        "the copy was edited"
    );
    forged
}

async fn a_refused_resume_leaves_the_run_resumable(store: Arc<dyn RunStore>) {
    let timeline = Timeline::default();
    let agent = agent(&timeline, store);
    let cancel = CancellationToken::new();
    let mut conversation = vec![Message::user("pay ana")];
    let LoopStatus::Paused(paused) = agent.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    let forged = edited(&paused);
    let forged_decisions = forged.turn().decide().allow("t").build();
    let refused = agent
        .resume(&mut conversation, forged, &forged_decisions, &cancel)
        .await;
    assert!(
        matches!(
            refused,
            Err(ResumeError::Decision(
                DecisionError::ArgumentsChanged { .. }
            ))
        ),
        "{refused:?}"
    );
    assert!(timeline.lock().unwrap().is_empty());
    // The genuine approval still goes through.
    let decisions = paused.turn().decide().allow("t").build();
    let outcome = agent
        .resume(&mut conversation, paused, &decisions, &cancel)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*timeline.lock().unwrap(), ["transfer to ana"]);
}

#[tokio::test]
async fn in_memory() {
    a_refused_resume_leaves_the_run_resumable(Arc::new(InMemoryRunStore::new())).await;
}

#[tokio::test]
async fn sqlite() {
    a_refused_resume_leaves_the_run_resumable(Arc::new(SqliteStore::open_in_memory().unwrap()))
        .await;
}
