//! Context: a waiting run shows what it already did in this run, with the results the model
//! read; when it paused, in words that stay current, exact on hover; and its outcome repeats
//! what was asked.

use serde_json::json;

use super::desk::{browse, ledger, Desk};

#[tokio::test(flavor = "multi_thread")]
async fn a_waiting_run_shows_what_it_already_did_and_when_it_paused() {
    let desk = Desk::start().await;
    let turn = desk.ask("trip Contexton", "context").await;
    // The weather ran before the pause (it needs no decision); the hotel waits.
    assert_eq!(ledger("Contexton"), ["weather for Contexton"]);
    let run = turn.id().as_str();
    let section = format!("section[data-run=\"{run}\"]");
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"eval": {"tab": "a", "js": format!(
            "Array.from(document.querySelectorAll('{section} details.done tbody tr')).map(r => r.innerText)"
        ), "as": "done"}},
        {"eval": {"tab": "a", "js": format!(
            "(t => [t.innerText, t.title, t.getAttribute('datetime')])(document.querySelector('{section} time'))"
        ), "as": "time"}},
        {"screenshot": {"tab": "a", "path": std::env::temp_dir().join(format!("approval-page-context-{}.png", std::process::id())).display().to_string(), "full": true}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"submit": {"tab": "a", "run": run}},
        {"read": {"tab": "a", "as": "outcome"}},
    ]))
    .await;
    let done = seen["done"].as_array().expect("what the run did");
    assert_eq!(done.len(), 1, "{done:?}");
    let row = done[0].as_str().unwrap_or_default();
    for part in ["weather", "Contexton", "ran", "Contexton: 21 °C"] {
        assert!(row.contains(part), "{part} in {row}");
    }
    let time = &seen["time"];
    assert_eq!(time[0], "just now");
    assert!(
        time[1]
            .as_str()
            .is_some_and(|title| title.ends_with(" UTC")),
        "{time}"
    );
    assert!(
        time[2]
            .as_str()
            .is_some_and(|at| at.ends_with('Z') && at.contains('T')),
        "{time}"
    );
    let outcome = seen["outcome"]["text"].as_str().expect("the outcome");
    assert!(
        outcome.contains("The user asked trip Contexton"),
        "{outcome}"
    );
    assert_eq!(
        ledger("Contexton"),
        ["weather for Contexton", "booked Contexton-1N"]
    );
}
