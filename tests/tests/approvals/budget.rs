//! A run whose budget is spent waits on the page like any gated call: the page says which limit
//! was reached, every call of the reply waits, and the person's allowance runs them and extends
//! the run's budget.

use serde_json::json;
use tool_sdk::run::{Budget, LoopOptions, OnExhausted};

use super::desk::{browse, ledger, Desk};

#[tokio::test(flavor = "multi_thread")]
async fn a_spent_budget_is_shown_and_allowing_runs_the_calls() {
    // One call a run, asked for: the desk books and charges in one reply of two calls.
    let budget = Budget::new()
        .with_tool_calls(1)
        .with_on_exhausted(OnExhausted::Ask);
    let desk = Desk::start_with(
        |agent| agent.with_options(LoopOptions::new().with_budget(budget)),
        |page| page,
    )
    .await;
    let turn = desk.ask("book 1 in Budgetville for 80", "budget").await;
    assert_eq!(
        turn.budget_reached(),
        Some("2 tool calls asked for, 1 allowed")
    );
    assert!(
        ledger("Budgetville").is_empty(),
        "nothing ran before the decision"
    );
    let run = turn.id().as_str();
    let shot = std::env::temp_dir()
        .join(format!("approval-page-budget-{}.png", std::process::id()))
        .display()
        .to_string();
    let seen = browse(json!([
        {"open": {"tab": "b", "url": desk.url}},
        {"eval": {"tab": "b", "js": format!(
            "document.querySelector('section[data-run=\"{run}\"] .note.budget').innerText"
        ), "as": "notice"}},
        {"eval": {"tab": "b", "js": format!(
            "Array.from(document.querySelectorAll('section[data-run=\"{run}\"] legend')).map(l => l.innerText)"
        ), "as": "legends"}},
        {"screenshot": {"tab": "b", "path": shot, "full": true}},
        {"choose": {"tab": "b", "run": run, "call": 0, "verdict": "allow"}},
        {"choose": {"tab": "b", "run": run, "call": 1, "verdict": "allow"}},
        {"submit": {"tab": "b", "run": run}},
    ]))
    .await;
    let notice = seen["notice"].as_str().expect("the budget's notice");
    assert!(
        notice.contains("The run's budget is spent: 2 tool calls asked for, 1 allowed."),
        "{notice}"
    );
    assert_eq!(
        seen["legends"],
        json!([
            "book_hotel needs your decision",
            "charge_card needs your decision"
        ])
    );
    assert_eq!(
        ledger("Budgetville"),
        ["booked Budgetville-1N", "charged 80 for Budgetville"]
    );
    assert!(!desk.waits(turn.id()).await, "the run went on");
}
