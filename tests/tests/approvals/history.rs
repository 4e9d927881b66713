//! The "decided" view: the history the run store keeps, so that another page over the same
//! store (a restart, a replica) shows it; a run being resumed shows as running, then what came
//! of it, without a reload.

use serde_json::json;

use super::desk::{browse, ledger, Desk};

/// A browser step that waits until the view's first decided run is in `state`; then records
/// the view's text.
fn until_state(tab: &str, state: &str, as_: &str) -> serde_json::Value {
    json!({"eval": {"tab": tab, "js": format!(
        "new Promise(done => {{ const t = setInterval(() => {{ \
           const run = document.querySelector('#decided section.decided'); \
           if (run && run.dataset.state === '{state}') {{ clearInterval(t); done(document.getElementById('decided').innerText); }} \
         }}, 100); setTimeout(() => done('timed out'), 15000); }})"
    ), "as": as_}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_decided_run_shows_running_then_its_outcome_on_any_page_over_the_store() {
    let desk = std::sync::Arc::new(Desk::start().await);
    let turn = desk.ask("wire 70 to Histowne", "history").await;
    // The view open before anything was decided.
    let empty = browse(json!([
        {"open": {"tab": "a", "url": format!("{}decided", desk.url)}},
        {"read": {"tab": "a", "as": "view"}},
    ]))
    .await;
    let view = empty["view"]["text"].as_str().unwrap_or_default();
    assert!(view.contains("Nothing was decided yet."), "{view}");

    // Decided by the application while the view is open on another page over the store; the
    // wire takes a moment, so the view sees it running first.
    let (other, _serving) = desk.another_page().await;
    let deciding = {
        let (desk, turn) = (std::sync::Arc::clone(&desk), turn.clone());
        tokio::spawn(async move { desk.allow(&turn, "history").await })
    };
    let seen = browse(json!([
        {"open": {"tab": "a", "url": format!("{other}decided")}},
        until_state("a", "running", "running"),
        until_state("a", "ended", "ended"),
        {"screenshot": {"tab": "a", "path": std::env::temp_dir().join(format!("approval-page-decided-{}.png", std::process::id())).display().to_string(), "full": true}},
    ]))
    .await;
    let status = deciding.await.expect("the decision ran");
    assert!(
        matches!(status, tool_sdk::run::LoopStatus::Answered(_)),
        "{status:?}"
    );
    let running = seen["running"].as_str().unwrap_or_default();
    for part in [
        "The user asked",
        "wire 70 to Histowne",
        "wire allowed by ops-bot",
        "Running",
    ] {
        assert!(running.contains(part), "{part} in {running}");
    }
    let ended = seen["ended"].as_str().unwrap_or_default();
    for part in [
        "Answered",
        "wire: wired 70 EUR to Histowne",
        "wire allowed by ops-bot",
    ] {
        assert!(ended.contains(part), "{part} in {ended}");
    }
    assert!(!ended.contains("Running"), "{ended}");
    // In the server: it ran once.
    assert_eq!(ledger("Histowne"), ["wired 70 to Histowne"]);
}
