//! What a person reads on the page is what runs: hidden characters shown, never applied; a
//! call that cannot run never labelled as running; the arguments of what ran readable on a
//! phone; and a page that another page of this machine cannot lock.

use serde_json::{json, Value};

use super::desk::{browse, ledger, Desk};

fn read(tab: &str, label: &str) -> Value {
    json!({"read": {"tab": tab, "as": label}})
}

/// Where a test's screenshot goes: a temporary file, or with `TOOL_SDK_KEEP_SCREENSHOTS` set,
/// that folder, to look at.
fn screenshot(name: &str) -> String {
    match std::env::var_os("TOOL_SDK_KEEP_SCREENSHOTS") {
        Some(folder) => std::path::Path::new(&folder)
            .join(format!("{name}.png"))
            .display()
            .to_string(),
        None => std::env::temp_dir()
            .join(format!("{name}-{}.png", std::process::id()))
            .display()
            .to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reversed_address_shows_as_sent_with_a_warning() {
    let desk = Desk::start().await;
    // Shown as written, the address reads `team@example.com`: U+202E reverses what follows.
    let address = "\u{202E}moc.elpmaxe@maet";
    let turn = desk
        .ask(&format!("email {address}: the plan"), "reversed")
        .await;
    let run = turn.id().as_str();
    let email = format!("section[data-run=\"{run}\"] fieldset:nth-of-type(2)");
    let shot = screenshot("approval-page-hidden-characters");
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url, "width": 900, "height": 1000}},
        {"eval": {"tab": "a", "js": format!("document.querySelector('{email} pre').textContent"), "as": "arguments"}},
        {"eval": {"tab": "a", "js": format!("document.querySelector('{email} .warning')?.innerText ?? null"), "as": "warning"}},
        {"eval": {"tab": "a", "js": "/[\\u202A-\\u202E\\u2066-\\u2069\\u200B-\\u200F]/.test(document.body.innerText)", "as": "applied"}},
        // The address as laid out: the marker, then `moc`, left to right, where the character
        // applied would have put `team` first.
        {"eval": {"tab": "a", "js": format!(
            "(() => {{ const mark = document.querySelector('{email} pre mark'); \
               const after = mark.nextSibling; const range = document.createRange(); \
               range.setStart(after, 0); range.setEnd(after, 3); \
               return [range.toString(), mark.getBoundingClientRect().right <= range.getBoundingClientRect().left + 1]; }})()"
        ), "as": "order"}},
        read("a", "page"),
        {"screenshot": {"tab": "a", "path": shot, "full": true}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "outcome"),
        {"eval": {"tab": "a", "js": "/[\\u202A-\\u202E\\u2066-\\u2069]/.test(document.body.innerText)", "as": "applied_after"}},
    ]))
    .await;
    let arguments = seen["arguments"].as_str().expect("the arguments' text");
    assert!(
        arguments.contains("\"to\": \"⟨U+202E⟩moc.elpmaxe@maet\""),
        "{arguments}"
    );
    assert!(!arguments.contains('\u{202E}'), "{arguments}");
    let warning = seen["warning"].as_str().expect("a warning beside the call");
    assert!(warning.contains("U+202E"), "{warning}");
    assert_eq!(seen["applied"], false, "a hidden character is applied");
    assert_eq!(seen["order"], json!(["moc", true]));
    let text = seen["page"]["text"].as_str().expect("the page's text");
    assert!(
        text.contains("email ⟨U+202E⟩moc.elpmaxe@maet: the plan"),
        "{text}"
    );
    assert!(!text.contains("team@example.com"), "{text}");
    // The model's answer after it, which quotes the address, cannot reverse either.
    let outcome = seen["outcome"]["text"]
        .as_str()
        .expect("the outcome's text");
    assert!(
        outcome.contains("send_email: sent to ⟨U+202E⟩moc.elpmaxe@maet"),
        "{outcome}"
    );
    assert_eq!(
        seen["applied_after"], false,
        "a hidden character is applied"
    );
    // What ran is the address as sent, the character included: the one the person saw marked.
    assert_eq!(
        ledger("moc.elpmaxe@maet"),
        [
            format!("weather for {address}"),
            format!("sent to {address}: the plan")
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_of_a_tool_not_offered_is_not_labelled_as_running() {
    let desk = Desk::start().await;
    let turn = desk.ask("ghost casper@ghost.example", "ghost").await;
    let run = turn.id().as_str();
    let shot = screenshot("approval-page-will-not-run");
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"screenshot": {"tab": "a", "path": shot, "full": true}},
        {"eval": {"tab": "a", "js": format!(
            "Array.from(document.querySelectorAll('section[data-run=\"{run}\"] legend')).map(l => l.innerText)"
        ), "as": "legends"}},
        {"eval": {"tab": "a", "js": format!(
            "document.querySelector('section[data-run=\"{run}\"] fieldset .note.fail').innerText"
        ), "as": "note"}},
    ]))
    .await;
    assert_eq!(
        seen["legends"],
        json!([
            "summon_spirit will not run",
            "send_email needs your decision"
        ])
    );
    let note = seen["note"].as_str().expect("a note");
    assert!(note.contains("No tool of this name was offered"), "{note}");
}

#[tokio::test(flavor = "multi_thread")]
async fn on_a_phone_the_outcome_shows_the_arguments_of_what_ran() {
    let desk = Desk::start().await;
    let turn = desk.ask("book 2 in Phonetown for 120", "phone").await;
    let run = turn.id().as_str();
    let shot = screenshot("approval-page-outcome-phone");
    let seen = browse(json!([
        {"open": {"tab": "p", "url": desk.url, "width": 360, "height": 740}},
        {"choose": {"tab": "p", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "p", "run": run, "call": 1, "verdict": "allow"}},
        {"submit": {"tab": "p", "run": run}},
        {"eval": {"tab": "p", "js": "Array.from(document.querySelectorAll('table.calls pre.arguments')).map(p => [p.getBoundingClientRect().width > 100, p.innerText])", "as": "arguments"}},
        {"eval": {"tab": "p", "js": "document.documentElement.scrollWidth <= window.innerWidth", "as": "fits"}},
        {"screenshot": {"tab": "p", "path": shot, "full": true}},
    ]))
    .await;
    let arguments = seen["arguments"].as_array().expect("the arguments shown");
    assert_eq!(arguments.len(), 2, "{arguments:?}");
    for shown in arguments {
        assert_eq!(shown[0], true, "hidden or squeezed: {shown}");
    }
    assert!(
        arguments[1][1]
            .as_str()
            .is_some_and(|text| text.contains("\"euros\": 120")),
        "{arguments:?}"
    );
    assert_eq!(
        seen["fits"], true,
        "the outcome is wider than a phone's screen"
    );
    assert_eq!(
        ledger("Phonetown"),
        ["booked Phonetown-2N", "charged 120 for Phonetown"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cookie_set_by_another_page_of_this_machine_cannot_lock_the_page() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let desk = Desk::start().await;
    let turn = desk.ask("book 1 in Lockton for 80", "lock").await;
    let run = turn.id().as_str();
    // Another page on this machine, on a port of its own, sets a cookie of the page's name for
    // the address decisions are sent to: cookies do not tell ports apart.
    let other = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let other_url = format!("http://{}/", other.local_addr().expect("an address"));
    let serving = tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = other.accept().await else {
                return;
            };
            let mut request = [0u8; 2048];
            let _ = socket.read(&mut request).await;
            let answer = "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\
                          set-cookie: tool_sdk_approvals=x; Path=/decide\r\n\
                          content-length: 9\r\nconnection: close\r\n\r\nelsewhere";
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"open": {"tab": "other", "url": other_url}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "decided"),
    ]))
    .await;
    serving.abort();
    assert_eq!(
        seen["decided"]["heading"], "Outcome",
        "{}",
        seen["decided"]["text"]
    );
    assert_eq!(
        ledger("Lockton"),
        ["booked Lockton-1N", "charged 80 for Lockton"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_form_being_filled_in_for_a_run_decided_elsewhere_says_so() {
    let desk = Desk::start().await;
    let turn = desk.ask("book 1 in Elsewhereby for 60", "elsewhere").await;
    let run = turn.id().as_str();
    let section = format!("section[data-run=\"{run}\"]");
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"open": {"tab": "b", "url": desk.url}},
        // Half-filled in tab a; decided whole in tab b.
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "b", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "b", "run": run, "call": 1, "verdict": "deny"}},
        {"submit": {"tab": "b", "run": run}},
        // Tab a polls every 2 s.
        {"eval": {"tab": "a", "js": format!(
            "new Promise(r => {{ const t = setInterval(() => {{ const n = document.querySelector('{section} .stale'); if (n) {{ clearInterval(t); r(n.innerText); }} }}, 100); setTimeout(() => r(null), 10000); }})"
        ), "as": "notice"}},
        {"eval": {"tab": "a", "js": format!("document.querySelector('{section} button[type=submit]').disabled"), "as": "disabled"}},
        {"screenshot": {"tab": "a", "path": screenshot("approval-page-decided-elsewhere"), "full": true}},
        {"eval": {"tab": "a", "js": format!("document.querySelector('{section} .stale a').getAttribute('href')"), "as": "link"}},
    ]))
    .await;
    let notice = seen["notice"]
        .as_str()
        .expect("a notice in the half-filled form");
    assert!(notice.contains("decided elsewhere"), "{notice}");
    assert_eq!(seen["disabled"], true);
    assert_eq!(seen["link"], format!("outcome?run={run}"));
}
