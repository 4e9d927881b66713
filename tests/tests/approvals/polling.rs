//! Light polling: the list's refresh asks the store which runs wait (ids and pauses) and loads
//! no conversation; the page fetches the section of a run it lacks, one run's conversation.
//! Counted with 50 waiting runs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;
use tool_sdk::approvals::ApprovalPage;
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::model::Message;
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::{ChatMemory, InMemoryChatMemory, SqliteStore, StoreFuture};
use tool_sdk::ScriptedModel;
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::replies::calls;

use super::desk::serve;

/// A chat memory that counts its loads.
#[derive(Default)]
struct Counted {
    memory: InMemoryChatMemory,
    loads: AtomicUsize,
}

impl ChatMemory for Counted {
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Vec<Message>> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        self.memory.load(conversation)
    }

    fn store<'a>(&'a self, conversation: &'a str, messages: &'a [Message]) -> StoreFuture<'a, ()> {
        self.memory.store(conversation, messages)
    }
}

/// `GET url` with `cookie`: the answer's head (lowercased) and body.
async fn get(url: &str, cookie: Option<&str>) -> (String, String) {
    let mut command = tokio::process::Command::new("curl");
    command.args(["-s", "-i", url]);
    if let Some(cookie) = cookie {
        command.args(["-H", &format!("Cookie: {cookie}")]);
    }
    let output = command.output().await.expect("curl runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_lowercase(), body.to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_poll_of_fifty_waiting_runs_loads_no_conversation() {
    const RUNS: usize = 50;
    let replies = (0..RUNS).map(|_| calls(&[("c1", "book_hotel", r#"{"reference":"P"}"#)]));
    let agent = Arc::new(
        ToolLoop::new(
            ScriptedModel::new(replies),
            booking_tools(&Timeline::default(), &[]),
        )
        .with_gate(Gate::new(
            ConfirmationPolicy::new().with_confirmed_tool("book_hotel"),
        ))
        .with_store(Arc::new(SqliteStore::open_in_memory().unwrap())),
    );
    let memory = Arc::new(Counted::default());
    for run in 0..RUNS {
        let outcome = agent
            .run("Book a hotel")
            .with_memory(&*memory, &format!("poll-{run}"))
            .await;
        assert!(
            matches!(outcome.status, LoopStatus::Paused(_)),
            "{:?}",
            outcome.status
        );
    }
    let (url, shutdown) = serve(ApprovalPage::new(Arc::clone(&agent), memory.clone())).await;
    let (head, _) = get(&url, None).await;
    let cookie = head
        .lines()
        .find_map(|line| line.strip_prefix("set-cookie: "))
        .and_then(|cookie| cookie.split(';').next())
        .expect("the page gives a session")
        .to_owned();

    memory.loads.store(0, Ordering::SeqCst);
    let (head, body) = get(&format!("{url}runs"), Some(&cookie)).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let polled = memory.loads.load(Ordering::SeqCst);
    let listed: Value = serde_json::from_str(&body).unwrap();
    let runs = listed["runs"].as_array().expect("the waiting runs");
    assert_eq!(runs.len(), RUNS);
    println!(
        "a poll of {RUNS} waiting runs: {polled} conversations loaded, {} bytes",
        body.len()
    );
    assert_eq!(polled, 0, "a poll loads no conversation");
    assert!(
        runs[0].get("html").is_none(),
        "a poll sends ids and pauses only"
    );

    // The page fetches a run it lacks: that run's conversation alone.
    let id = runs[0]["id"].as_str().unwrap();
    let (head, body) = get(&format!("{url}run?id={id}"), Some(&cookie)).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(memory.loads.load(Ordering::SeqCst), 1);
    let run: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(run["id"], id);
    assert_eq!(run["pause"], runs[0]["pause"]);
    assert!(
        run["html"]
            .as_str()
            .is_some_and(|html| html.contains(&format!("data-run=\"{id}\""))),
        "{run}"
    );
    let (head, _) = get(&format!("{url}run?id=not-a-run"), Some(&cookie)).await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    shutdown.cancel();
}
