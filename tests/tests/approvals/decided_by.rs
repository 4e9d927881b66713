//! Who decided: the person the page's check let through is recorded with each decision they
//! send, and the outcome says who decided what, and when; "Allow all" and "Deny all" decide a
//! whole run at once, each call still bound to what the page showed.

use serde_json::json;

use super::desk::{browse, ledger, Desk};

/// Decides `run`'s two calls on the page at `url` (allowing the first, denying the second
/// with a message): the outcome's text.
async fn decide_on_the_page(url: &str, run: &str) -> String {
    let seen = browse(json!([
        {"open": {"tab": "a", "url": url}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "deny"}},
        {"write": {"tab": "a", "run": run, "call": 1, "message": "Ask me again tomorrow"}},
        {"submit": {"tab": "a", "run": run}},
        {"read": {"tab": "a", "as": "outcome"}},
    ]))
    .await;
    seen["outcome"]["text"]
        .as_str()
        .expect("the outcome's text")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn on_this_machine_the_decider_is_local() {
    let desk = Desk::start().await;
    let turn = desk.ask("book 1 in Localton for 90", "decided-local").await;
    let text = decide_on_the_page(&desk.url, turn.id().as_str()).await;
    assert!(text.contains("Who decided"), "{text}");
    assert!(text.contains("book_hotel allowed by local at "), "{text}");
    assert!(text.contains("charge_card denied by local at "), "{text}");
    assert!(text.contains("Ask me again tomorrow"), "{text}");
    assert_eq!(ledger("Localton"), ["booked Localton-1N"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_person_the_application_s_check_names_is_the_decider() {
    // The application's single sign-on names whoever reaches the page.
    let desk = Desk::start_with(
        |agent| agent,
        |page| page.with_authorize(|_| Ok("ana@travel.example".to_owned())),
    )
    .await;
    let turn = desk.ask("book 1 in Anaville for 90", "decided-ana").await;
    let text = decide_on_the_page(&desk.url, turn.id().as_str()).await;
    assert!(
        text.contains("book_hotel allowed by ana@travel.example at "),
        "{text}"
    );
    assert!(
        text.contains("charge_card denied by ana@travel.example at "),
        "{text}"
    );
    assert_eq!(ledger("Anaville"), ["booked Anaville-1N"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_all_allows_each_call_as_shown_and_deny_all_denies_each() {
    let desk = Desk::start().await;
    let allowed = desk.ask("book 2 in Allton for 150", "allow-all").await;
    let denied = desk.ask("book 3 in Denyton for 200", "deny-all").await;
    let (allowed_run, denied_run) = (allowed.id().as_str(), denied.id().as_str());
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"eval": {"tab": "a", "js": format!(
            "Array.from(document.querySelectorAll('section[data-run=\"{allowed_run}\"] button')).map(b => b.innerText)"
        ), "as": "buttons"}},
        {"screenshot": {"tab": "a", "path": std::env::temp_dir().join(format!("approval-page-all-{}.png", std::process::id())).display().to_string(), "full": true}},
        {"submit": {"tab": "a", "run": allowed_run, "all": "allow"}},
        {"read": {"tab": "a", "as": "allowed"}},
        {"open": {"tab": "b", "url": desk.url}},
        {"submit": {"tab": "b", "run": denied_run, "all": "deny"}},
        {"read": {"tab": "b", "as": "denied"}},
    ]))
    .await;
    assert_eq!(
        seen["buttons"],
        json!(["Submit decisions", "Allow all", "Deny all"])
    );
    let allowed_text = seen["allowed"]["text"].as_str().expect("an outcome");
    assert!(
        allowed_text.contains("book_hotel allowed by local"),
        "{allowed_text}"
    );
    assert!(
        allowed_text.contains("charge_card allowed by local"),
        "{allowed_text}"
    );
    assert_eq!(
        ledger("Allton"),
        ["booked Allton-2N", "charged 150 for Allton"]
    );
    let denied_text = seen["denied"]["text"].as_str().expect("an outcome");
    assert!(
        denied_text.contains("book_hotel denied by local"),
        "{denied_text}"
    );
    assert!(
        denied_text.contains("charge_card denied by local"),
        "{denied_text}"
    );
    assert!(ledger("Denyton").is_empty(), "nothing ran");
    assert!(!desk.waits(allowed.id()).await && !desk.waits(denied.id()).await);
}
