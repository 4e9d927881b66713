//! The rules every `RunStore` keeps, checked on each: in memory, SQLite and PostgreSQL. A
//! second handle on the same data acts as another process or replica.

use std::sync::Arc;
use std::time::Duration;

use tool_sdk::store::{
    Compensated, InMemoryRunStore, InMemoryTaskStore, Orphans, PauseId, PostgresStore, RecordEntry,
    ReplayGuard, RunId, RunStore, SqliteStore, StoreError, StoredTask, TaskEnd, TaskState,
    TaskStore,
};
use tool_sdk::{
    define::{Confirm, ToolOptions},
    register::DynamicTool,
    store::ChatMemory,
    AssistantMessage, Message, ScriptedModel, ToolCall, ToolRegistry,
};
use tool_sdk::{
    run::{LoopStatus, ToolLoop},
    store::PausedTurn,
};
use tool_sdk_tests::durable::{place, Backend, Place};

#[derive(Clone, Copy, Debug)]
enum Kind {
    Memory,
    Sqlite,
    Postgres,
}

/// Opens handles on one store's data; each handle is its own owner.
struct Opener {
    kind: Kind,
    memory: Arc<InMemoryRunStore>,
    memory_tasks: InMemoryTaskStore,
    place: Option<Place>,
}

/// One handle, with the other traits of the durable stores when it has them.
struct Handle {
    runs: Arc<dyn RunStore>,
    tasks: Arc<dyn TaskStore>,
    guard: Arc<dyn ReplayGuard>,
    sqlite: Option<SqliteStore>,
    postgres: Option<PostgresStore>,
}

impl Opener {
    async fn new(kind: Kind, test: &str) -> Self {
        let place = match kind {
            Kind::Memory => None,
            Kind::Sqlite => Some(place(Backend::Sqlite, test).await),
            Kind::Postgres => Some(place(Backend::Postgres, test).await),
        };
        Self {
            kind,
            memory: Arc::new(InMemoryRunStore::new()),
            memory_tasks: InMemoryTaskStore::new(),
            place,
        }
    }

    async fn open(&self) -> Handle {
        let location = self.place.as_ref().map(Place::location).unwrap_or_default();
        match self.kind {
            Kind::Memory => Handle {
                runs: Arc::new(self.memory.handle()),
                tasks: Arc::new(self.memory_tasks.clone()),
                guard: Arc::new(self.memory.handle()),
                sqlite: None,
                postgres: None,
            },
            Kind::Sqlite => {
                let store = SqliteStore::open(location).expect("open SQLite");
                Handle {
                    runs: Arc::new(store.clone()),
                    tasks: Arc::new(store.clone()),
                    guard: Arc::new(store.clone()),
                    sqlite: Some(store),
                    postgres: None,
                }
            }
            Kind::Postgres => {
                let store = PostgresStore::connect(location)
                    .await
                    .expect("connect to PostgreSQL");
                Handle {
                    runs: Arc::new(store.clone()),
                    tasks: Arc::new(store.clone()),
                    guard: Arc::new(store.clone()),
                    sqlite: None,
                    postgres: Some(store),
                }
            }
        }
    }
}

const LONG: Duration = Duration::from_secs(60);

fn entry(key: &str, seq_hint: usize) -> RecordEntry {
    let call = ToolCall::new(key, "book", format!(r#"{{"n": {seq_hint}}}"#));
    serde_json::from_value(serde_json::json!({
        "seq": 0,
        "round": 1,
        "key": key,
        "call": call,
        "output": format!("booked-{key}"),
        "output_is_json": false,
        "message_index": seq_hint,
        "idempotency_key": format!("run:1:{key}"),
    }))
    .expect("a record entry")
}

async fn recorded_successes_go_to_whoever_claims_the_orphan(kind: Kind) {
    let opener = Opener::new(kind, "claim").await;
    let first = opener.open().await;
    let second = opener.open().await;
    let run = RunId::new();
    first.runs.begin(&run, LONG).await.unwrap();
    for (n, key) in ["a", "b", "c"].into_iter().enumerate() {
        first.runs.record(&run, &entry(key, n)).await.unwrap();
    }
    // Recorded twice (a retried write): kept once.
    first.runs.record(&run, &entry("b", 1)).await.unwrap();
    first
        .runs
        .compensated(&run, "run:1:c", &Compensated::Done)
        .await
        .unwrap();

    // Leased for a minute: not expired, so a replica leaves it alone.
    assert_eq!(
        second
            .runs
            .claim_orphan(Orphans::Expired, LONG, &[])
            .await
            .unwrap(),
        None
    );
    // A process at start-up takes it, with what is still to roll back, oldest first.
    let orphan = second
        .runs
        .claim_orphan(Orphans::All, LONG, &[])
        .await
        .unwrap()
        .expect("an orphan");
    assert_eq!(orphan.run, run);
    let keys: Vec<&str> = orphan.pending.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["a", "b"]);
    assert!(orphan.pending[0].seq < orphan.pending[1].seq);
    // Claimed once: nobody else gets it, not even the claimer again.
    assert_eq!(
        second
            .runs
            .claim_orphan(Orphans::All, LONG, &[])
            .await
            .unwrap(),
        None
    );

    // The first owner has lost it: every write is refused, so it cannot interfere.
    let lost = |r: Result<(), StoreError>| matches!(r, Err(StoreError::Lost(_)));
    assert!(lost(first.runs.renew(&run, LONG).await));
    assert!(lost(first.runs.record(&run, &entry("d", 3)).await));
    assert!(lost(
        first
            .runs
            .compensated(&run, "run:1:a", &Compensated::Done)
            .await
    ));
    assert!(lost(first.runs.finish(&run).await));

    second
        .runs
        .compensated(&run, "run:1:b", &Compensated::Done)
        .await
        .unwrap();
    second
        .runs
        .compensated(&run, "run:1:a", &Compensated::Failed("down".into()))
        .await
        .unwrap();
    second.runs.finish(&run).await.unwrap();
    let third = opener.open().await;
    assert_eq!(
        third
            .runs
            .claim_orphan(Orphans::All, LONG, &[])
            .await
            .unwrap(),
        None
    );
}

async fn an_expired_lease_makes_an_orphan(kind: Kind) {
    let opener = Opener::new(kind, "expired").await;
    let first = opener.open().await;
    let second = opener.open().await;
    let run = RunId::new();
    first
        .runs
        .begin(&run, Duration::from_millis(1))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
    let orphan = second
        .runs
        .claim_orphan(Orphans::Expired, LONG, &[])
        .await
        .unwrap()
        .expect("the expired run");
    assert_eq!(orphan.run, run);
    assert!(orphan.pending.is_empty());
}

/// A recovery pass names the runs it lost or released, and a claim passes over them, expired or
/// not, but takes any other.
async fn a_claim_passes_over_the_runs_it_is_told_to_skip(kind: Kind) {
    let opener = Opener::new(kind, "skip").await;
    let first = opener.open().await;
    let second = opener.open().await;
    let (lost, other) = (RunId::new(), RunId::new());
    for run in [&lost, &other] {
        first
            .runs
            .begin(run, Duration::from_millis(1))
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(30)).await;
    let skip = [lost.clone()];
    let orphan = second
        .runs
        .claim_orphan(Orphans::Expired, LONG, &skip)
        .await
        .unwrap()
        .expect("the run not skipped");
    assert_eq!(orphan.run, other);
    for which in [Orphans::Expired, Orphans::All] {
        assert_eq!(
            second.runs.claim_orphan(which, LONG, &skip).await.unwrap(),
            None,
            "{which:?}"
        );
    }
    // Skipped by that pass only: the next one takes it.
    let orphan = second
        .runs
        .claim_orphan(Orphans::Expired, LONG, &[])
        .await
        .unwrap()
        .expect("the run skipped before");
    assert_eq!(orphan.run, lost);
}

/// An owner that stalled past its lease, while another claimed, rolled back and finished the
/// run, is told so when it comes to finish the run itself; the owner that finished it may
/// repeat its finish (a retry after a reply that was lost).
async fn a_run_finished_by_another_owner_is_lost_to_a_late_finish(kind: Kind) {
    let opener = Opener::new(kind, "late_finish").await;
    let stalled = opener.open().await;
    let successor = opener.open().await;
    let run = RunId::new();
    stalled
        .runs
        .begin(&run, Duration::from_millis(1))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
    let orphan = successor
        .runs
        .claim_orphan(Orphans::Expired, LONG, &[])
        .await
        .unwrap()
        .expect("the expired run");
    assert_eq!(orphan.run, run);
    successor.runs.finish(&run).await.unwrap();
    successor.runs.finish(&run).await.unwrap();
    assert!(
        matches!(stalled.runs.finish(&run).await, Err(StoreError::Lost(_))),
        "the stalled owner must not take the rolled-back run for finished well"
    );
}

async fn a_paused_run_is_taken_back_once(kind: Kind) {
    let opener = Opener::new(kind, "paused").await;
    let pauser = opener.open().await;
    let paused = pause_a_transfer(pauser.runs.clone()).await;
    let id = paused.id().clone();

    // Paused runs wait for a person: never orphans.
    let other = opener.open().await;
    assert_eq!(
        other
            .runs
            .claim_orphan(Orphans::All, LONG, &[])
            .await
            .unwrap(),
        None
    );
    // Readable by anyone, as many times as needed.
    let loaded = other.runs.load_paused(&id).await.unwrap();
    assert_eq!(loaded, paused);

    // Taken only at the pause it waits at: another pause's identity takes nothing.
    let elsewhere = PauseId::from_string("another pause");
    assert!(matches!(
        other.runs.take_paused(&id, &elsewhere, LONG).await,
        Err(StoreError::AlreadyDecided(name)) if name == id.as_str()
    ));
    assert_eq!(other.runs.load_paused(&id).await.unwrap(), paused);
    // A run the store never saw is unknown, not decided.
    let unknown = RunId::from_string("never-begun");
    assert!(matches!(
        other.runs.take_paused(&unknown, paused.pause(), LONG).await,
        Err(StoreError::UnknownRun(_))
    ));
    assert!(matches!(
        other.runs.load_paused(&unknown).await,
        Err(StoreError::UnknownRun(_))
    ));

    // Eight owners race to take it: exactly one wins; the others are told it was decided.
    let mut racers = Vec::new();
    for _ in 0..8 {
        let handle = opener.open().await;
        let (id, pause) = (id.clone(), paused.pause().clone());
        racers.push(tokio::spawn(async move {
            handle.runs.take_paused(&id, &pause, LONG).await
        }));
    }
    let mut won = 0;
    for racer in racers {
        match racer.await.unwrap() {
            Ok(taken) => {
                won += 1;
                assert_eq!(taken, paused);
            }
            Err(StoreError::AlreadyDecided(name)) => assert_eq!(name, id.as_str()),
            Err(other) => panic!("unexpected {other}"),
        }
    }
    assert_eq!(won, 1);
    assert!(matches!(
        other.runs.load_paused(&id).await,
        Err(StoreError::AlreadyDecided(_))
    ));
}

async fn paused_runs_are_listed_newest_first_until_taken(kind: Kind) {
    let opener = Opener::new(kind, "listed").await;
    let handle = opener.open().await;
    assert_eq!(handle.runs.list_paused(10).await.unwrap(), []);
    let mut paused = Vec::new();
    for _ in 0..3 {
        paused.push(pause_a_transfer(handle.runs.clone()).await);
        // Pauses a clock tick apart, so that newest first has one meaning.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // A run still going is not listed.
    let running = RunId::from_string("still-running");
    handle.runs.begin(&running, LONG).await.unwrap();

    let other = opener.open().await;
    let listed = other.runs.list_paused(10).await.unwrap();
    let ids: Vec<_> = listed.iter().map(|run| run.turn.id().clone()).collect();
    let newest_first: Vec<_> = paused.iter().rev().map(|turn| turn.id().clone()).collect();
    assert_eq!(ids, newest_first);
    assert_eq!(listed[0].turn, paused[2], "the turn as it was paused");
    assert!(listed[0].paused_at > listed[1].paused_at);
    assert!(listed[1].paused_at > listed[2].paused_at);
    let first_two: Vec<_> = other.runs.list_paused(2).await.unwrap();
    assert_eq!(first_two.len(), 2);
    assert_eq!(first_two[0].turn.id(), paused[2].id());

    // Once taken back, a run is listed no more.
    other
        .runs
        .take_paused(paused[1].id(), paused[1].pause(), LONG)
        .await
        .unwrap();
    let ids: Vec<_> = other
        .runs
        .list_paused(10)
        .await
        .unwrap()
        .into_iter()
        .map(|run| run.turn.id().clone())
        .collect();
    assert_eq!(ids, [paused[2].id().clone(), paused[0].id().clone()]);
}

async fn pause_a_transfer(store: Arc<dyn RunStore>) -> PausedTurn {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            DynamicTool::new(
                "transfer",
                "Sends money.",
                serde_json::json!({"type": "object", "properties": {}}),
                |_| async { Ok::<_, String>("sent".to_owned()) },
            )
            .unwrap()
            .with_options(ToolOptions::new().with_confirm(Confirm::Always)),
        )
        .unwrap();
    let model = ScriptedModel::new([AssistantMessage::with_tool_calls(vec![ToolCall::new(
        "x", "transfer", "{}",
    )])]);
    let agent = ToolLoop::new(model, registry).with_store(store);
    let mut conversation = vec![Message::user("pay")];
    match agent.run(&mut conversation).await.status {
        LoopStatus::Paused(paused) => *paused,
        other => panic!("expected a pause, got {other:?}"),
    }
}

async fn memory_and_paused_turns_survive_a_reopen(kind: Kind) {
    let opener = Opener::new(kind, "reopen").await;
    // A result of parts (a caption, an image, a file) comes back as it was stored.
    let (content, parts) = tool_sdk::define::ToolOutput::from_parts([
        tool_sdk::define::Part::text("The chart:"),
        tool_sdk::define::Part::image("image/png", [0x89, b'P', b'N', b'G']),
        tool_sdk::define::Part::file("application/pdf", "q1.pdf", b"%PDF"),
    ])
    .into_content_and_parts();
    let conversation = [
        Message::user("hello"),
        Message::Assistant(AssistantMessage::with_tool_calls(vec![ToolCall::new(
            "c1", "chart", "{}",
        )])),
        Message::Tool(tool_sdk::model::ToolResultMessage {
            call_id: Some("c1".into()),
            key: "c1".into(),
            name: "chart".into(),
            content,
            parts,
            status: tool_sdk::model::ToolResultStatus::Success,
        }),
        Message::user("again"),
    ];
    let turn_id = {
        let handle = opener.open().await;
        let memory: &dyn ChatMemory = match (&handle.sqlite, &handle.postgres) {
            (Some(store), _) => store,
            (_, Some(store)) => store,
            _ => return,
        };
        memory.store("ana", &conversation).await.unwrap();
        let paused = pause_a_transfer(handle.runs.clone()).await;
        paused.id().clone()
    };
    // A new handle, as after a restart.
    let handle = opener.open().await;
    let memory: &dyn ChatMemory = match (&handle.sqlite, &handle.postgres) {
        (Some(store), _) => store,
        (_, Some(store)) => store,
        _ => return,
    };
    assert_eq!(memory.load("ana").await.unwrap(), conversation);
    assert!(memory.load("ben").await.unwrap().is_empty());
    memory.store("ana", &conversation[..1]).await.unwrap();
    assert_eq!(memory.load("ana").await.unwrap(), conversation[..1]);
    handle.runs.load_paused(&turn_id).await.unwrap();
    let pause = handle
        .runs
        .load_paused(&turn_id)
        .await
        .unwrap()
        .pause()
        .clone();
    handle
        .runs
        .take_paused(&turn_id, &pause, LONG)
        .await
        .unwrap();
    assert!(matches!(
        handle.runs.take_paused(&turn_id, &pause, LONG).await,
        Err(StoreError::AlreadyDecided(_))
    ));
}

/// The task `id` as `handle` sees it; it must be known.
async fn seen(handle: &Handle, id: &str) -> StoredTask {
    let found = handle.tasks.load_task(id).await.expect("the task loads");
    found.unwrap_or_else(|| panic!("the task `{id}` is unknown"))
}

async fn a_task_is_seen_renewed_cancelled_and_ended_from_another_handle(kind: Kind) {
    let opener = Opener::new(kind, "task_lifecycle").await;
    let (owner, other) = (opener.open().await, opener.open().await);
    assert_eq!(
        other.tasks.load_task("t-1").await,
        Ok(None),
        "unknown at first"
    );
    assert_eq!(other.tasks.request_task_cancel("t-1").await, Ok(false));
    let created_at = owner
        .tasks
        .create_task("t-1", LONG, LONG)
        .await
        .expect("create");
    let task = seen(&other, "t-1").await;
    assert_eq!(
        task.state,
        TaskState::Working {
            cancel_requested: false
        }
    );
    assert_eq!(task.created_at, created_at);
    assert_eq!(task.status_message, None);
    // The owner renews with its news; the other handle sees it.
    let asked = owner.tasks.renew_task("t-1", LONG, Some("1 of 3")).await;
    assert_eq!(asked, Ok(false), "no one asked for a cancel yet");
    let task = seen(&other, "t-1").await;
    assert_eq!(task.status_message.as_deref(), Some("1 of 3"));
    assert!(task.updated_at >= task.created_at);
    // A cancel asked through the other handle reaches the owner at its next renewal.
    assert_eq!(other.tasks.request_task_cancel("t-1").await, Ok(true));
    assert_eq!(owner.tasks.renew_task("t-1", LONG, None).await, Ok(true));
    let task = seen(&other, "t-1").await;
    assert_eq!(
        task.state,
        TaskState::Working {
            cancel_requested: true
        }
    );
    assert_eq!(
        task.status_message.as_deref(),
        Some("1 of 3"),
        "kept without news"
    );
    // The first end is kept, with the owner's last word.
    let result = serde_json::json!({"content": [{"type": "text", "text": "done"}]});
    let completed = TaskEnd::Completed(result);
    owner
        .tasks
        .end_task("t-1", &completed, Some("3 of 3"))
        .await
        .expect("end");
    owner
        .tasks
        .end_task("t-1", &TaskEnd::Cancelled, None)
        .await
        .expect("a second end is harmless");
    let task = seen(&other, "t-1").await;
    assert_eq!(task.state, TaskState::Ended(completed));
    assert_eq!(task.status_message.as_deref(), Some("3 of 3"));
    assert_eq!(
        owner.tasks.renew_task("t-1", LONG, Some("late")).await,
        Ok(true),
        "an ended task is renewed no more: its owner stops"
    );
    assert_eq!(
        seen(&other, "t-1").await.status_message.as_deref(),
        Some("3 of 3")
    );
}

async fn a_task_whose_lease_ran_out_is_abandoned_and_one_past_its_ttl_forgotten(kind: Kind) {
    let opener = Opener::new(kind, "task_lease").await;
    let (owner, other) = (opener.open().await, opener.open().await);
    let short = Duration::from_millis(200);
    owner
        .tasks
        .create_task("leased", LONG, short)
        .await
        .expect("create");
    owner
        .tasks
        .create_task("brief", short, LONG)
        .await
        .expect("create");
    tokio::time::sleep(short * 2).await;
    let task = seen(&other, "leased").await;
    assert_eq!(task.state, TaskState::Abandoned);
    assert_eq!(
        other.tasks.load_task("brief").await,
        Ok(None),
        "past its time to live"
    );
    assert_eq!(other.tasks.request_task_cancel("brief").await, Ok(false));
    // Reported failed, it stays so: an owner that comes back late is told to stop, and its
    // late end changes nothing.
    assert_eq!(owner.tasks.renew_task("leased", LONG, None).await, Ok(true));
    let completed = TaskEnd::Completed(serde_json::json!({"content": []}));
    owner
        .tasks
        .end_task("leased", &completed, None)
        .await
        .expect("a late end is harmless");
    assert_eq!(seen(&other, "leased").await.state, TaskState::Abandoned);
    // A failure keeps its error.
    owner
        .tasks
        .create_task("failing", LONG, LONG)
        .await
        .expect("create");
    let failed = TaskEnd::Failed(serde_json::json!({"code": -32603, "message": "boom"}));
    owner
        .tasks
        .end_task("failing", &failed, None)
        .await
        .expect("end");
    assert_eq!(
        seen(&other, "failing").await.state,
        TaskState::Ended(failed)
    );
    // An id is created once.
    assert!(owner
        .tasks
        .create_task("failing", LONG, LONG)
        .await
        .is_err());
}

/// What replicas sharing a store redeem once (a sealed token's nonce, an MCP request state):
/// of handles redeeming one nonce, in turn or all at once, exactly one is told it is fresh.
async fn a_nonce_is_redeemed_once_across_handles(kind: Kind) {
    let opener = Opener::new(kind, "nonce").await;
    let handles = [
        opener.open().await,
        opener.open().await,
        opener.open().await,
    ];
    let until = u64::MAX / 2;
    assert!(handles[0].guard.consume("first", until).await.unwrap());
    for handle in &handles {
        assert!(!handle.guard.consume("first", until).await.unwrap());
    }
    let racing = (0..12).map(|n| {
        let guard = Arc::clone(&handles[n % handles.len()].guard);
        tokio::spawn(async move { guard.consume("raced", until).await.unwrap() })
    });
    let mut fresh = 0;
    for redeemed in racing.collect::<Vec<_>>() {
        fresh += usize::from(redeemed.await.unwrap());
    }
    assert_eq!(fresh, 1);
    // Another nonce is its own.
    assert!(handles[2].guard.consume("second", until).await.unwrap());
}

macro_rules! on_every_store {
    ($($scenario:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $scenario() {
                    super::$scenario(super::Kind::Memory).await;
                }
            )*
        }
        mod sqlite {
            $(
                #[tokio::test]
                async fn $scenario() {
                    super::$scenario(super::Kind::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $scenario() {
                    super::$scenario(super::Kind::Postgres).await;
                }
            )*
        }
    };
}

on_every_store!(
    recorded_successes_go_to_whoever_claims_the_orphan,
    a_run_finished_by_another_owner_is_lost_to_a_late_finish,
    an_expired_lease_makes_an_orphan,
    a_claim_passes_over_the_runs_it_is_told_to_skip,
    a_paused_run_is_taken_back_once,
    memory_and_paused_turns_survive_a_reopen,
    paused_runs_are_listed_newest_first_until_taken,
    a_task_is_seen_renewed_cancelled_and_ended_from_another_handle,
    a_task_whose_lease_ran_out_is_abandoned_and_one_past_its_ttl_forgotten,
    a_nonce_is_redeemed_once_across_handles,
);
