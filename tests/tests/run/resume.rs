//! Resuming a paused run checks the decisions against the copy the store kept before taking
//! it: a resume that is refused leaves the genuine run resumable.

use std::sync::{Arc, Mutex};

use tool_sdk::gate::GateError;
use tool_sdk::run::CancellationToken;
use tool_sdk::store::{InMemoryRunStore, RunStore, SqliteStore};
use tool_sdk::{define_tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry};
use tool_sdk::{
    run::{LoopStatus, ToolLoop},
    store::PausedTurn,
};
use tool_sdk_tests::booking::{self, Timeline};
use tool_sdk_tests::durable::{place, Backend};

fn tools(timeline: &Timeline) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(booking::transfer(timeline)).unwrap();
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
fn edited(paused: &PausedTurn) -> PausedTurn {
    let mut value = serde_json::to_value(paused).unwrap();
    let text = serde_json::to_string(&value)
        .unwrap()
        .replace(r#"{\"to\": \"ana\"}"#, r#"{\"to\": \"mallory\"}"#);
    value = serde_json::from_str(&text).unwrap();
    let forged: PausedTurn = serde_json::from_value(value).unwrap();
    assert_ne!(forged.reply(), paused.reply(), "the copy was edited");
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
    let forged_decisions = forged.decide().allow("t").build();
    let refused = agent
        .resume(&mut conversation, forged.id(), &forged_decisions)
        .with_cancel(&cancel)
        .await;
    assert!(
        matches!(refused, Err(GateError::ArgumentsChanged { .. })),
        "{refused:?}"
    );
    assert!(timeline.lock().unwrap().is_empty());
    // The genuine approval still goes through.
    let decisions = paused.decide().allow("t").build();
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .with_cancel(&cancel)
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    assert_eq!(*timeline.lock().unwrap(), ["transfer to ana"]);
}

/// Two runs wait in one store; decisions built for the pause of one are sent to resume the
/// other. They are refused as made for another pause (not as decided already: neither pause
/// was), nothing runs, and both runs stay resumable.
async fn decisions_for_another_runs_pause_are_refused_as_such(store: Arc<dyn RunStore>) {
    let timeline = Timeline::default();
    let (first, second) = (
        agent(&timeline, Arc::clone(&store)),
        agent(&timeline, store),
    );
    let mut conversation = vec![Message::user("pay ana")];
    let LoopStatus::Paused(waiting) = first.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    let mut other_conversation = vec![Message::user("pay ana")];
    let LoopStatus::Paused(other) = second.run(&mut other_conversation).await.status else {
        panic!("expected a pause");
    };
    let theirs = other.decide().allow("t").build();
    let refused = first.resume(&mut conversation, waiting.id(), &theirs).await;
    match refused {
        Err(GateError::OtherPause {
            decisions_for,
            paused_at,
        }) => {
            assert_eq!(&decisions_for, other.pause());
            assert_eq!(&paused_at, waiting.pause());
        }
        refused => panic!("{refused:?}"),
    }
    assert!(timeline.lock().unwrap().is_empty());
    for (agent, conversation, paused) in [
        (&first, &mut conversation, &waiting),
        (&second, &mut other_conversation, &other),
    ] {
        let decisions = paused.decide().allow("t").build();
        let outcome = agent
            .resume(conversation, paused.id(), &decisions)
            .await
            .unwrap();
        assert!(
            matches!(outcome.status, LoopStatus::Answered(_)),
            "{:?}",
            outcome.status
        );
    }
    assert_eq!(timeline.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn in_memory() {
    a_refused_resume_leaves_the_run_resumable(Arc::new(InMemoryRunStore::new())).await;
    decisions_for_another_runs_pause_are_refused_as_such(Arc::new(InMemoryRunStore::new())).await;
}

#[tokio::test]
async fn sqlite() {
    a_refused_resume_leaves_the_run_resumable(Arc::new(SqliteStore::open_in_memory().unwrap()))
        .await;
    decisions_for_another_runs_pause_are_refused_as_such(Arc::new(
        SqliteStore::open_in_memory().unwrap(),
    ))
    .await;
}

/// `book` (compensable: its compensation logs the output it is given), `transfer` (needs a
/// decision) and `fail`.
fn saga_tools(timeline: &Timeline) -> ToolRegistry {
    let mut registry = tools(timeline);
    let (log, undo) = (Arc::clone(timeline), Arc::clone(timeline));
    registry
        .register(define_tool!(
            /// Books.
            #[tool(name = "book", compensate = move |_args, booking: String| {
                undo.lock().unwrap().push(format!("cancel {booking}"));
            })]
            move |room: String| -> String {
                log.lock().unwrap().push(format!("book {room}"));
                format!("booking-{room}")
            }
        ))
        .unwrap();
    registry
        .register(define_tool!(
            /// Fails.
            #[tool(name = "fail")]
            || -> Result<String, String> { Err("down".into()) }
        ))
        .unwrap();
    registry
}

fn saga(timeline: &Timeline) -> ToolLoop {
    let model = ScriptedModel::new([
        AssistantMessage::with_tool_calls(vec![ToolCall::new("b", "book", r#"{"room": "7"}"#)]),
        AssistantMessage::with_tool_calls(vec![ToolCall::new("t", "transfer", r#"{"to": "ana"}"#)]),
        AssistantMessage::with_tool_calls(vec![ToolCall::new("f", "fail", "{}")]),
    ]);
    ToolLoop::new(model, saga_tools(timeline))
}

#[tokio::test]
async fn without_a_store_an_edited_copy_runs_no_forged_compensation() {
    let timeline = Timeline::default();
    let agent = saga(&timeline);
    let cancel = CancellationToken::new();
    let mut conversation = vec![Message::user("book and pay")];
    let LoopStatus::Paused(paused) = agent.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    // The caller edits what the compensation will be given.
    let text = serde_json::to_string(&paused)
        .unwrap()
        .replace("booking-7", "booking-of-someone-else");
    let forged: PausedTurn = serde_json::from_str(&text).unwrap();
    let decisions = forged.decide().allow("t").build();
    let outcome = agent
        .resume(&mut conversation, forged.id(), &decisions)
        .with_cancel(&cancel)
        .await
        .unwrap();
    assert!(matches!(outcome.status, LoopStatus::RolledBack { .. }));
    assert_eq!(
        *timeline.lock().unwrap(),
        ["book 7", "transfer to ana", "cancel booking-7"]
    );
}

#[tokio::test]
async fn without_a_store_two_copies_of_a_paused_run_resume_once() {
    let timeline = Timeline::default();
    let model = ScriptedModel::new([
        AssistantMessage::with_tool_calls(vec![ToolCall::new("t", "transfer", r#"{"to": "ana"}"#)]),
        AssistantMessage {
            text: Some("sent".into()),
            tool_calls: vec![],
        },
        AssistantMessage {
            text: Some("sent again".into()),
            tool_calls: vec![],
        },
    ]);
    let agent = ToolLoop::new(model, tools(&timeline));
    let cancel = CancellationToken::new();
    let mut conversation = vec![Message::user("pay ana")];
    let LoopStatus::Paused(paused) = agent.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    let copy: PausedTurn = serde_json::from_str(&serde_json::to_string(&paused).unwrap()).unwrap();
    let decisions = paused.decide().allow("t").build();
    let first = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .with_cancel(&cancel)
        .await
        .unwrap();
    assert!(matches!(first.status, LoopStatus::Answered(_)));
    let second = agent
        .resume(&mut conversation, copy.id(), &decisions)
        .with_cancel(&cancel)
        .await;
    // Told it was decided already, as a store would tell it.
    assert!(second.as_ref().is_err_and(is_already_decided), "{second:?}");
    assert_eq!(*timeline.lock().unwrap(), ["transfer to ana"]);
}

/// The model asks for the same transfer again and again, without an id (keyed `#0`, as
/// Gemini's calls are): each pause of the run looks the same as the one before.
fn repeating_agent(counter: &Arc<Mutex<u32>>, store: Arc<dyn RunStore>) -> ToolLoop {
    let again = || {
        AssistantMessage::with_tool_calls(vec![ToolCall::without_id(
            "transfer",
            r#"{"to":"alice","amount":5}"#,
        )])
    };
    let model = ScriptedModel::new([again(), again(), again()]);
    let count = Arc::clone(counter);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Sends money.
            #[tool(name = "transfer", confirm)]
            move |to: String, amount: u32| -> String {
                *count.lock().unwrap() += 1;
                format!("sent {amount} to {to}")
            }
        ))
        .unwrap();
    ToolLoop::new(model, registry).with_store(store)
}

/// One approval, however many resumes carry it: `racers` resumes race with the decisions of the
/// first pause, each through a store value of its own (as replicas would), and then the winner's
/// client retries. The call runs once; every other resume is told the pause was decided.
async fn one_approval_runs_one_call(
    open: impl Fn() -> futures_util::future::BoxFuture<'static, Arc<dyn RunStore>>,
    racers: usize,
) {
    let counter = Arc::new(Mutex::new(0));
    let mut conversation = vec![Message::user("pay alice 5")];
    let first = repeating_agent(&counter, open().await);
    let LoopStatus::Paused(paused) = first.run(&mut conversation).await.status else {
        panic!("expected a pause");
    };
    assert_eq!(paused.awaiting(), ["#0"]);
    let decisions = paused.decide().allow("#0").build();
    let mut racing = Vec::new();
    for _ in 0..racers {
        let agent = repeating_agent(&counter, open().await);
        let (id, decisions, mut conversation) =
            (paused.id().clone(), decisions.clone(), conversation.clone());
        racing.push(tokio::spawn(async move {
            let outcome = agent.resume(&mut conversation, &id, &decisions).await;
            (agent, outcome)
        }));
    }
    let mut resumed = Vec::new();
    for race in racing {
        let (agent, outcome) = race.await.unwrap();
        match outcome {
            Ok(outcome) => resumed.push((agent, outcome)),
            Err(refused) => assert!(is_already_decided(&refused), "{refused:?}"),
        }
    }
    assert_eq!(resumed.len(), 1, "one resume takes the pause");
    assert_eq!(*counter.lock().unwrap(), 1, "one approval, one transfer");
    // The winner paused again on the same call; its client retries the resume it made.
    let (agent, outcome) = resumed.pop().unwrap();
    let LoopStatus::Paused(again) = outcome.status else {
        panic!("expected the second pause, got {:?}", outcome.status);
    };
    assert_eq!(again.id(), paused.id());
    assert_eq!(again.awaiting(), ["#0"]);
    let retried = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await;
    assert!(
        matches!(&retried, Err(refused) if is_already_decided(refused)),
        "{retried:?}"
    );
    assert_eq!(*counter.lock().unwrap(), 1, "a retry runs nothing");
    // The second pause is decided on its own.
    let next = again.decide().allow("#0").build();
    let _ = agent
        .resume(&mut conversation, again.id(), &next)
        .await
        .unwrap();
    assert_eq!(*counter.lock().unwrap(), 2);
}

fn is_already_decided(error: &GateError) -> bool {
    matches!(error, GateError::AlreadyDecided { .. })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_approval_runs_one_call_in_memory() {
    for racers in RACERS {
        for _ in 0..10 {
            let store = InMemoryRunStore::new();
            one_approval_runs_one_call(
                move || {
                    let handle: Arc<dyn RunStore> = Arc::new(store.handle());
                    Box::pin(async move { handle })
                },
                racers,
            )
            .await;
        }
    }
}

/// How many resumes race for one pause: two, as two replicas would, and sixteen.
const RACERS: [usize; 2] = [2, 16];

/// Ten rounds of racing resumes for each count of racers, each round on a fresh place of
/// `backend`.
async fn one_approval_runs_one_call_on(backend: Backend) {
    for racers in RACERS {
        for round in 0..10 {
            let name = format!("one_approval_{backend:?}_{racers}_{round}");
            let place = Arc::new(place(backend, &name).await);
            one_approval_runs_one_call(
                move || {
                    let place = Arc::clone(&place);
                    Box::pin(async move { place.open().await.run_store() })
                },
                racers,
            )
            .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_approval_runs_one_call_in_sqlite() {
    one_approval_runs_one_call_on(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_approval_runs_one_call_in_postgres() {
    one_approval_runs_one_call_on(Backend::Postgres).await;
}

/// A loop over `store` whose approver answers each pause with `decide`, counting the pauses.
fn approving_agent(
    timeline: &Timeline,
    store: Arc<dyn RunStore>,
    asked: &Arc<Mutex<u32>>,
    decide: fn(&PausedTurn) -> tool_sdk::gate::ToolCallDecisions,
) -> ToolLoop {
    let asked = Arc::clone(asked);
    agent(timeline, store).with_approver(move |paused: &PausedTurn| {
        *asked.lock().unwrap() += 1;
        decide(paused)
    })
}

async fn an_approver_decides_in_process(store: Arc<dyn RunStore>) {
    // Allowed: one call of `run` pauses, is decided and resumes, and the call runs once.
    let timeline = Timeline::default();
    let asked = Arc::new(Mutex::new(0));
    let agent = approving_agent(&timeline, Arc::clone(&store), &asked, |paused| {
        paused.decide().allow_rest().build()
    });
    let outcome = agent.run("pay ana").await;
    assert!(
        matches!(&outcome.status, LoopStatus::Answered(reply) if reply.text.as_deref() == Some("sent")),
        "{:?}",
        outcome.status
    );
    assert_eq!(*asked.lock().unwrap(), 1);
    assert_eq!(*timeline.lock().unwrap(), ["transfer to ana"]);
    assert_eq!(outcome.rounds, 2);

    // Denied: nothing runs, and the model reads the denial.
    let timeline = Timeline::default();
    let agent = approving_agent(&timeline, Arc::clone(&store), &asked, |paused| {
        paused.decide().deny("t", "not to ana").build()
    });
    let mut conversation = vec![Message::user("pay ana")];
    let outcome = agent.run(&mut conversation).await;
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert!(timeline.lock().unwrap().is_empty());
    assert!(
        conversation
            .iter()
            .any(|m| matches!(m, Message::Tool(result) if result.content == "not to ana")),
        "{conversation:?}"
    );

    // Decisions that do not fit (made for another pause) are refused: the run comes back
    // paused, as it stands, and a person's decisions still resume it.
    let timeline = Timeline::default();
    let agent = approving_agent(&timeline, store, &asked, |_| {
        let elsewhere = PausedTurn::new(
            AssistantMessage::with_tool_calls(vec![ToolCall::new("t", "transfer", "{}")]),
            ["transfer"],
            ["t"],
        );
        elsewhere.decide().allow_rest().build()
    });
    let mut conversation = vec![Message::user("pay ana")];
    let LoopStatus::Paused(paused) = agent.run(&mut conversation).await.status else {
        panic!("refused decisions leave the run paused");
    };
    assert!(timeline.lock().unwrap().is_empty());
    let decisions = paused.decide().allow_rest().build();
    let outcome = agent
        .resume(&mut conversation, paused.id(), &decisions)
        .await
        .unwrap();
    assert!(matches!(outcome.status, LoopStatus::Answered(_)));
    assert_eq!(*timeline.lock().unwrap(), ["transfer to ana"]);
}

#[tokio::test]
async fn an_approver_decides_in_process_in_memory() {
    an_approver_decides_in_process(Arc::new(InMemoryRunStore::new())).await;
}

#[tokio::test]
async fn an_approver_decides_in_process_in_sqlite() {
    an_approver_decides_in_process(Arc::new(SqliteStore::open_in_memory().unwrap())).await;
}
