//! Edit, then allow, on the page: a person corrects a call's arguments before allowing it. What
//! does not fit the tool shows at the field as they type and keeps the form from being sent;
//! sent anyway, the server refuses it and nothing runs; corrected, the call runs with their
//! arguments, the model reads what they changed, and the outcome shows the edit and who made it.

use serde_json::{json, Value};
use tool_sdk::Message;

use super::desk::{browse, ledger, Desk};

/// A browser step that waits until the edit of call 1 has been checked: its error shown when
/// `shown`, hidden when not; then records the error, whether the form may be sent, and the
/// field's `aria-invalid`.
fn checked(run: &str, shown: bool, as_: &str) -> Value {
    let section = format!("section[data-run=\"{run}\"]");
    json!({"eval": {"tab": "a", "js": format!(
        "new Promise(done => {{ \
           const text = document.querySelector('{section} textarea[name=\"call.1.arguments\"]'); \
           const error = document.getElementById(text.getAttribute('aria-describedby')); \
           const t = setInterval(() => {{ if (error.hidden === {hidden}) {{ clearInterval(t); \
             done([error.textContent, text.form.checkValidity(), text.getAttribute('aria-invalid')]); }} }}, 50); \
           setTimeout(() => done(['timed out', null, null]), 10000); }})",
        hidden = !shown
    ), "as": as_}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_runs_with_the_arguments_a_person_corrected() {
    let desk = Desk::start().await;
    // The model would charge 900 EUR, over the card's limit; the person corrects it to 300.
    let turn = desk.ask("book 2 in Editburg for 900", "edited").await;
    let run = turn.id().as_str();
    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"eval": {"tab": "a", "js": format!(
            "document.querySelector('section[data-run=\"{run}\"] textarea[name=\"call.1.arguments\"]').value"
        ), "as": "prefilled"}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"edit": {"tab": "a", "run": run, "call": 1, "arguments": "{\"euros\": \"three hundred\", \"city\": \"Editburg\"}"}},
        checked(run, true, "unfit"),
        {"screenshot": {"tab": "a", "path": std::env::temp_dir().join(format!("approval-page-edit-{}.png", std::process::id())).display().to_string(), "full": true}},
        {"edit": {"tab": "a", "run": run, "call": 1, "arguments": "{\"euros\": 300, \"city\": \"Editburg\"}"}},
        checked(run, false, "fit"),
        // Sent past the page's check (as any client may), the server refuses what does not fit.
        {"set": {"tab": "a", "run": run, "name": "call.1.arguments", "value": "{\"euros\": -1}"}},
        {"submit": {"tab": "a", "run": run}},
        {"read": {"tab": "a", "as": "refused"}},
    ]))
    .await;
    let prefilled = seen["prefilled"].as_str().unwrap_or_default();
    let laid_out: Value = serde_json::from_str(prefilled).expect("the prefilled text is JSON");
    assert_eq!(laid_out, json!({"euros": 900, "city": "Editburg"}));
    let unfit = &seen["unfit"];
    assert!(
        unfit[0]
            .as_str()
            .is_some_and(|error| error.contains("euros")),
        "the error names the field: {unfit}"
    );
    assert_eq!(
        unfit[1], false,
        "an unfit edit keeps the form from being sent"
    );
    assert_eq!(unfit[2], "true");
    assert_eq!(seen["fit"], json!(["", true, "false"]));
    let refused = &seen["refused"];
    assert_eq!(refused["status"], 400, "{refused}");
    assert_eq!(
        refused["heading"], "The edited arguments do not fit",
        "{refused}"
    );
    assert!(ledger("Editburg").is_empty(), "nothing ran");
    assert!(desk.waits(turn.id()).await);

    let seen = browse(json!([
        {"open": {"tab": "a", "url": desk.url}},
        {"choose": {"tab": "a", "run": run, "call": 0, "verdict": "allow"}},
        {"edit": {"tab": "a", "run": run, "call": 1, "arguments": "{\"euros\": 300, \"city\": \"Editburg\"}"}},
        checked(run, false, "fit"),
        {"submit": {"tab": "a", "run": run}},
        {"read": {"tab": "a", "as": "outcome"}},
    ]))
    .await;
    let outcome = &seen["outcome"];
    assert_eq!(outcome["heading"], "Outcome", "{outcome}");
    let text = outcome["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("charge_card allowed with edited arguments {\"euros\": 300, \"city\": \"Editburg\"} by local"),
        "{text}"
    );
    // In the server: the corrected charge ran, and the model read what the person changed.
    assert_eq!(
        ledger("Editburg"),
        ["booked Editburg-2N", "charged 300 for Editburg"]
    );
    let conversation = desk.conversation("edited").await;
    let told = conversation.iter().any(|message| {
        matches!(message, Message::Tool(result)
            if result.name == "charge_card"
                && result.content.starts_with("A person changed this call's arguments before it ran; it ran with {\"euros\": 300")
                && result.content.ends_with("charged 300 EUR"))
    });
    assert!(told, "{conversation:?}");
}
