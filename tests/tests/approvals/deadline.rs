//! Deadlines on the page: a waiting run shows the time left to decide, counted down; an
//! allowance sent past it is refused and runs nothing; and the page's server denies an overdue
//! run's waiting calls itself, once, telling the model why, so that the run leaves the list and
//! its outcome names the deadline as who decided.

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use serde_json::{json, Value};
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::Message;

use super::desk::{ask_when_poked, browse, ledger, Desk};

/// How long the desk's pauses wait: the run pauses once the browser has the page open, which
/// shows it within a poll (2 s), so the browser reads the time left before it runs out.
const DEADLINE: Duration = Duration::from_secs(6);

/// A desk whose pauses have a deadline, its page sweeping every `sweep`.
async fn desk(sweep: Duration) -> Arc<Desk> {
    Arc::new(
        Desk::start_with(
            |agent| agent.with_gate(Gate::new(ConfirmationPolicy::new().with_deadline(DEADLINE))),
            |page| page.with_sweep_every(sweep),
        )
        .await,
    )
}

/// A browser step that waits until the page shows a run (it polls every 2 s).
fn until_a_run_shows() -> Value {
    json!({"eval": {"tab": "a", "js": "new Promise(r => { const t = setInterval(() => { if (document.querySelector('section.run')) { clearInterval(t); r(true); } }, 100); setTimeout(() => r(false), 10000); })", "as": "appeared"}})
}

/// A browser step that waits `millis`, then evaluates `then`, as `as`.
fn after(millis: Duration, then: &str, as_: &str) -> Value {
    json!({"eval": {"tab": "a", "js": format!(
        "new Promise(done => setTimeout(done, {})).then(() => {then})",
        millis.as_millis()
    ), "as": as_}})
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowance_past_the_deadline_is_refused_and_runs_nothing() {
    // No sweep within the test: the late allowance meets the deadline itself.
    let desk = desk(Duration::from_secs(3600)).await;
    let (poke, asked) = ask_when_poked(&desk, "trip Lateburg", "deadline-late").await;
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"poke": {"url": poke}},
        until_a_run_shows(),
        {"eval": {"tab": "a", "js":
            "(n => [n.innerText, n.querySelector('time').dataset.until, n.querySelector('time').title])(document.querySelector('section.run .deadline'))",
            "as": "note"}},
        {"screenshot": {"tab": "a", "path": std::env::temp_dir().join(format!("approval-page-deadline-{}.png", std::process::id())).display().to_string(), "full": true}},
        {"choose": {"tab": "a", "call": 0, "verdict": "allow"}},
        after(DEADLINE, "document.querySelector('section.run .deadline time').innerText", "left"),
        {"submit": {"tab": "a"}},
        {"read": {"tab": "a", "as": "answer"}},
    ]))
    .await;
    let turn = asked.await.expect("the run paused");
    assert_eq!(seen["appeared"], true, "the run did not appear");
    let note = &seen["note"];
    let text = note[0].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Time to decide: under a minute left."),
        "{note}"
    );
    assert!(text.contains("each waiting call is denied"), "{note}");
    // The note holds the deadline the run keeps, to the millisecond.
    let deadline = turn.deadline().expect("the pause has a deadline");
    let millis = deadline.duration_since(UNIX_EPOCH).unwrap().as_millis();
    assert_eq!(note[1], json!(millis.to_string()));
    assert!(note[2]
        .as_str()
        .is_some_and(|title| title.ends_with(" UTC")));
    // The script counted it down.
    assert_eq!(seen["left"], "none left");

    let answer = &seen["answer"];
    assert_eq!(answer["status"], 409, "{answer}");
    assert_eq!(answer["heading"], "Too late to allow", "{answer}");
    // Nothing ran: the weather before the pause only. The run still waits, for its expiry.
    assert_eq!(ledger("Lateburg"), ["weather for Lateburg"]);
    assert!(desk.waits(turn.id()).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_denies_an_overdue_run_once_and_shows_its_outcome() {
    let desk = desk(Duration::from_millis(200)).await;
    let (poke, asked) = ask_when_poked(&desk, "trip Expiria", "deadline-swept").await;
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"poke": {"url": poke}},
        until_a_run_shows(),
        // Past the deadline, a sweep and a poll: the run is gone from the list.
        after(
            DEADLINE + Duration::from_secs(3),
            "document.querySelectorAll('section.run').length",
            "after"
        ),
    ]))
    .await;
    let turn = asked.await.expect("the run paused");
    assert_eq!(seen["appeared"], true, "the run did not appear");
    assert_eq!(seen["after"], 0, "the run left the list once denied");
    let run = turn.id().as_str();
    let seen = browse(json!([
        {"open": {"tab": "a", "url": format!("{}outcome?run={run}", desk.url)}},
        {"read": {"tab": "a", "as": "outcome"}},
    ]))
    .await;
    let outcome = &seen["outcome"];
    assert_eq!(outcome["status"], 200, "{outcome}");
    let text = outcome["text"].as_str().unwrap_or_default();
    assert!(text.contains("The user asked trip Expiria"), "{text}");
    assert!(
        text.contains("book_hotel denied by deadline"),
        "the outcome names the deadline as who decided: {text}"
    );

    // In the server: the hotel never ran, the run waits no more, and the model read why.
    assert_eq!(ledger("Expiria"), ["weather for Expiria"]);
    assert!(!desk.waits(turn.id()).await);
    let conversation = desk.conversation("deadline-swept").await;
    let told = conversation.iter().any(|message| {
        matches!(message, Message::Tool(result)
            if result.name == "book_hotel" && result.content.contains("before its deadline"))
    });
    assert!(told, "{conversation:?}");
}
