//! The page in headless Chromium: seen, decided, refused, and safe with markup.

use serde_json::{json, Value};

use super::desk::{ask_when_poked, browse, ledger, Desk};

/// Opens the page in tab `a`.
fn open(desk: &Desk) -> Value {
    json!({"open": {"tab": "a", "url": desk.url}})
}

fn read(tab: &str, label: &str) -> Value {
    json!({"read": {"tab": tab, "as": label}})
}

/// Where a screenshot named `name` goes: the README's, when asked to update it
/// (`TOOL_SDK_UPDATE_SCREENSHOT`), else a temporary file.
fn screenshot_path(name: &str, readme: bool) -> String {
    match std::env::var_os("TOOL_SDK_UPDATE_SCREENSHOT") {
        Some(_) if readme => format!("{}/../docs/approval-page.png", env!("CARGO_MANIFEST_DIR")),
        _ => std::env::temp_dir()
            .join(format!("{name}-{}.png", std::process::id()))
            .display()
            .to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_shows_the_waiting_calls() {
    let desk = Desk::start().await;
    let turn = desk
        .ask("email ana@seen.example: lunch moves to noon", "seen")
        .await;
    let run = turn.id().as_str();
    let screenshot = screenshot_path("approval-page", false);
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url, "width": 900, "height": 1000}},
        read("a", "page"),
        {"screenshot": {"tab": "a", "path": screenshot}},
        {"eval": {"tab": "a", "js": format!(
            "Array.from(document.querySelectorAll('section[data-run=\"{run}\"] legend')).map(l => l.innerText)"
        ), "as": "legends"}},
        // On a phone's screen, nothing is wider than the screen.
        {"open": {"tab": "phone", "url": desk.url, "width": 360, "height": 740}},
        {"eval": {"tab": "phone", "js": "document.documentElement.scrollWidth <= window.innerWidth", "as": "fits"}},
    ]))
    .await;
    let text = seen["page"]["text"].as_str().expect("the page's text");
    assert_eq!(seen["page"]["status"], 200);
    assert_eq!(seen["page"]["heading"], "Waiting for your decision");
    assert!(
        text.contains("email ana@seen.example: lunch moves to noon"),
        "{text}"
    );
    assert!(
        text.contains("Sends an email on the team's behalf."),
        "{text}"
    );
    assert!(text.contains("\"body\": \"lunch moves to noon\""), "{text}");
    assert_eq!(
        seen["legends"],
        json!(["weather will run", "send_email needs your decision"])
    );
    assert_eq!(
        seen["fits"], true,
        "the page is wider than a phone's screen"
    );
    let png = std::fs::read(&screenshot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    // Seeing runs nothing.
    assert!(desk.waits(turn.id()).await);
    assert_eq!(ledger("ana@seen.example"), Vec::<String>::new());
}

/// The README's screenshot: a run that already looked up the weather waits to book, with the
/// time left to decide, and the person corrects the nights before allowing it.
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_screenshot_shows_context_a_deadline_and_an_edit() {
    use tool_sdk::gate::{ConfirmationPolicy, Gate};
    let deadline = std::time::Duration::from_secs(15 * 60);
    let desk = Desk::start_with(
        |agent| agent.with_gate(Gate::new(ConfirmationPolicy::new().with_deadline(deadline))),
        |page| page.with_title("Travel desk"),
    )
    .await;
    let turn = desk.ask("trip Lisbon", "readme").await;
    let run = turn.id().as_str();
    let screenshot = screenshot_path("approval-page-readme", true);
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url, "width": 900, "height": 1000}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "edit"}},
        {"edit": {"tab": "a", "run": run, "call": 0, "arguments": "{\n  \"city\": \"Lisbon\",\n  \"nights\": 2\n}"}},
        // The check answered: no error to show.
        {"eval": {"tab": "a", "js": "new Promise(done => setTimeout(() => done(document.querySelector('section.run textarea[name=\"call.0.arguments\"]').getAttribute('aria-invalid')), 800))", "as": "invalid"}},
        {"screenshot": {"tab": "a", "path": screenshot}},
        read("a", "page"),
    ]))
    .await;
    let text = seen["page"]["text"].as_str().expect("the page's text");
    for part in [
        "trip Lisbon",
        "Already done in this run",
        "Lisbon: 21 °C",
        "Time to decide: ",
        " min left.",
        "Allow, edited",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    assert_eq!(seen["invalid"], "false");
    let png = std::fs::read(&screenshot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    assert!(desk.waits(turn.id()).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_denial_with_a_message_reaches_the_model_and_its_answer() {
    let desk = Desk::start().await;
    let turn = desk
        .ask("email ben@deny.example: the budget is final", "deny")
        .await;
    let run = turn.id().as_str();
    let seen = browse(json!([
        open(&desk),
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "deny"}},
        {"write": {"tab": "a", "run": run, "call": 1, "message": "Not before the board meets"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "outcome"),
    ]))
    .await;
    let outcome = &seen["outcome"];
    assert_eq!(outcome["status"], 200);
    assert_eq!(outcome["heading"], "Outcome");
    let text = outcome["text"].as_str().expect("the outcome's text");
    assert!(text.contains("The model answered"), "{text}");
    assert!(
        text.contains("send_email: Not before the board meets"),
        "{text}"
    );
    assert!(text.contains("denied"), "{text}");
    // In the server: the weather ran (it needed no decision), the email did not, and the run
    // is over.
    assert_eq!(ledger("ben@deny.example"), ["weather for ben@deny.example"]);
    assert!(!desk.waits(turn.id()).await);
    let conversation = desk.conversation("deny").await;
    let told = format!("{conversation:?}");
    assert!(told.contains("Not before the board meets"), "{told}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_booking_is_rolled_back_when_the_charge_fails_and_the_page_says_so() {
    let desk = Desk::start().await;
    let turn = desk.ask("book 2 in Rollbackburg for 900", "rollback").await;
    let run = turn.id().as_str();
    let seen = browse(json!([
        open(&desk),
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "outcome"),
    ]))
    .await;
    let text = seen["outcome"]["text"]
        .as_str()
        .expect("the outcome's text");
    assert!(text.contains("The run was rolled back"), "{text}");
    assert!(text.contains("tool `charge_card` failed"), "{text}");
    assert!(text.contains("over its 400 EUR limit"), "{text}");
    assert!(text.contains("Rolled back"), "{text}");
    assert!(text.contains("book_hotel undone"), "{text}");
    assert!(text.contains("ran, then rolled back"), "{text}");
    // In the server: booked, then cancelled, once each; nothing charged.
    assert_eq!(
        ledger("Rollbackburg"),
        ["booked Rollbackburg-2N", "cancelled Rollbackburg-2N"]
    );
    assert!(!desk.waits(turn.id()).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_submit_from_another_tab_is_refused_and_nothing_runs_twice() {
    let desk = Desk::start().await;
    let turn = desk.ask("book 1 in Twotabton for 100", "twice").await;
    let run = turn.id().as_str();
    let seen = browse(json!([
        open(&desk),
        {"open": {"tab": "b", "url": desk.url}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"choose": {"tab": "b", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "b", "run": run, "call": 1, "verdict": "allow"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "first"),
        {"submit": {"tab": "b", "run": run}},
        read("b", "second"),
    ]))
    .await;
    assert_eq!(seen["first"]["heading"], "Outcome");
    assert_eq!(seen["second"]["status"], 409);
    assert_eq!(seen["second"]["heading"], "Decided already");
    let text = seen["second"]["text"].as_str().expect("the refusal's text");
    assert!(text.contains("Nothing ran for this submission"), "{text}");
    // The refusal leads on: to what came of the decision made, and back to the list.
    assert!(
        text.contains("See what came of the decision made"),
        "{text}"
    );
    assert!(text.contains("Back to the waiting runs"), "{text}");
    assert_eq!(
        ledger("Twotabton"),
        ["booked Twotabton-1N", "charged 100 for Twotabton"],
        "each call ran once"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tampered_form_runs_nothing_and_the_run_still_waits() {
    let desk = Desk::start().await;
    let turn = desk.ask("book 3 in Tamperville for 300", "tamper").await;
    let run = turn.id().as_str();
    // The arguments' fingerprint swapped for another call's: as if the arguments changed
    // between showing and deciding.
    let other = tool_sdk::gate::fingerprint(&tool_sdk::ToolCall::new(
        "book_hotel",
        "book_hotel",
        r#"{"city": "Tamperville", "nights": 30}"#,
    ));
    let seen = browse(json!([
        open(&desk),
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"set": {"tab": "a", "run": run, "name": "call.0.fingerprint", "value": other}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "swapped"),
        open(&desk),
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"remove": {"tab": "a", "run": run, "name": "csrf"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "tokenless"),
        open(&desk),
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "a", "run": run, "call": 1, "verdict": "allow"}},
        {"set": {"tab": "a", "run": run, "name": "csrf", "value": "forged"}},
        {"submit": {"tab": "a", "run": run}},
        read("a", "forged"),
    ]))
    .await;
    assert_eq!(seen["swapped"]["status"], 409);
    assert_eq!(seen["swapped"]["heading"], "The calls changed");
    for refused in ["tokenless", "forged"] {
        assert_eq!(seen[refused]["status"], 403, "{refused}");
        let text = seen[refused]["text"].as_str().expect("the refusal's text");
        assert!(
            text.contains("security token is missing or wrong"),
            "{refused}: {text}"
        );
    }
    // In the server: nothing ran, and the run still waits for an honest decision.
    assert_eq!(ledger("Tamperville"), Vec::<String>::new());
    assert!(desk.waits(turn.id()).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn markup_in_an_argument_shows_as_text() {
    let desk = Desk::start().await;
    let markup = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">";
    let turn = desk
        .ask(&format!("email eve@markup.example: {markup}"), "markup")
        .await;
    let run = turn.id().as_str();
    let seen = browse(json!([
        open(&desk),
        {"eval": {"tab": "a", "js": "window.pwned === undefined", "as": "untouched"}},
        {"eval": {"tab": "a", "js": format!(
            "document.querySelector('section[data-run=\"{run}\"] fieldset:nth-of-type(2) pre').textContent"
        ), "as": "shown"}},
        {"eval": {"tab": "a", "js": "document.querySelectorAll('main script, main img').length", "as": "elements"}},
        read("a", "page"),
    ]))
    .await;
    assert_eq!(seen["untouched"], true, "a script of the argument ran");
    assert_eq!(seen["elements"], 0, "the argument became elements");
    let shown = seen["shown"].as_str().expect("the arguments' text");
    assert!(
        shown.contains("<script>window.pwned = 1</script>"),
        "{shown}"
    );
    let html = seen["page"]["html"].as_str().expect("the page's HTML");
    assert!(html.contains("&lt;script&gt;window.pwned"), "not escaped");
    // In the server: showing it ran nothing.
    assert_eq!(ledger("eve@markup.example"), Vec::<String>::new());
    assert!(desk.waits(turn.id()).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_pauses_later_appears_without_a_reload_and_is_decided_by_keyboard() {
    let desk = std::sync::Arc::new(Desk::start().await);
    // The run starts once the browser has read the empty page.
    let (poke, later) = ask_when_poked(&desk, "book 1 in Latertown for 50", "later").await;
    let seen = browse(json!([
        open(&desk),
        read("a", "before"),
        {"poke": {"url": poke}},
        // The page polls every 2 s: the run shows without a reload.
        {"eval": {"tab": "a", "js": "new Promise(r => { const t = setInterval(() => { if (document.querySelector('section.run')) { clearInterval(t); r(true); } }, 100); setTimeout(() => r(false), 10000); })", "as": "appeared"}},
        {"eval": {"tab": "a", "js": "document.getElementById('news').textContent", "as": "news"}},
        {"eval": {"tab": "a", "js": "document.getElementById('empty').hidden", "as": "empty_hidden"}},
        // Keyboard only: Tab past the views' two links to the first call's choices, Space
        // allows; Tab past its edit and its message to the second call's, Space allows; Tab
        // past its edit and its message to the button, Enter.
        {"keys": {"tab": "a", "press": ["Tab", "Tab", "Tab", "Space", "Tab", "Tab", "Tab", "Space", "Tab", "Tab", "Tab", "Enter"]}},
        {"wait_url": {"tab": "a", "contains": "outcome?run="}},
        read("a", "outcome"),
    ]))
    .await;
    let turn = later.await.expect("the later run");
    let before = seen["before"]["text"].as_str().unwrap_or_default();
    assert!(before.contains("Nothing waits for a decision"), "{before}");
    assert_eq!(seen["appeared"], true, "the new run did not appear");
    assert_eq!(seen["news"], "A new run waits for you.");
    assert_eq!(seen["empty_hidden"], true);
    assert_eq!(
        seen["outcome"]["heading"], "Outcome",
        "{}",
        seen["outcome"]["text"]
    );
    assert_eq!(
        ledger("Latertown"),
        ["booked Latertown-1N", "charged 50 for Latertown"]
    );
    assert!(!desk.waits(turn.id()).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_example_serves_a_desk_whose_runs_wait() {
    use tokio::io::{AsyncBufReadExt as _, BufReader};
    let mut example = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval_page"))
        .env("APPROVAL_PAGE_PORT", "0")
        // The scripted desk, whatever model the environment names.
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("GEMINI_API_KEY")
        .env_remove("GEMINI_BASE_URL")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let mut lines = BufReader::new(example.stdout.take().expect("stdout")).lines();
    let mut printed = Vec::new();
    let url = loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("the example prints its URL in time")
            .expect("stdout reads")
            .unwrap_or_else(|| panic!("the example ended:\n{}", printed.join("\n")));
        if let Some(url) = line
            .strip_prefix("Open ")
            .and_then(|rest| rest.split(' ').next())
        {
            break url.to_owned();
        }
        printed.push(line);
    };
    assert!(
        printed
            .first()
            .is_some_and(|line| line.contains("scripted desk")),
        "{printed:?}"
    );
    let seen = browse(json!([
        {"open": {"tab": "a", "url": url}},
        {"eval": {"tab": "a", "js": "document.querySelectorAll('section.run form').length", "as": "forms"}},
        read("a", "page"),
    ]))
    .await;
    assert_eq!(seen["forms"], 3, "three runs wait");
    let text = seen["page"]["text"].as_str().expect("the page's text");
    assert!(
        text.contains("Book 2 nights in Lisbon and pay with the company card"),
        "{text}"
    );
    assert!(
        text.contains("the offsite moves to <b>Friday</b>"),
        "{text}"
    );
}
