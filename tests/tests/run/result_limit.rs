//! A result longer than its limit reaches the model cut, its head and tail kept and the cut
//! said; the whole result goes to the run's events.

use std::sync::{Arc, Mutex};

use tool_sdk::run::{event_fn, LoopEvent, LoopOptions, LoopStatus, DEFAULT_RESULT_LIMIT};
use tool_sdk::{tool, AssistantMessage, Message, ScriptedModel, ToolCall, ToolLoop, ToolRegistry};
use tool_sdk_tests::replies::tool_results;

/// Returns `n` bytes: `<` and `>` at the ends, `é` (two bytes) between.
#[tool]
fn long_text(n: usize) -> String {
    let middle = "é".repeat(n.saturating_sub(2) / 2);
    format!("<{middle}{}>", if n % 2 == 1 { "x" } else { "" })
}

/// [`long_text`], with a limit of its own.
#[tool(result_limit = 10)]
fn short_text(n: usize) -> String {
    long_text(n)
}

fn call(tool: &str, n: usize) -> AssistantMessage {
    AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", tool, format!(r#"{{"n": {n}}}"#))])
}

/// What the model reads of a result of `n` bytes, and the cuts the events report, with the
/// options and registry given.
async fn run_with(tool: &str, n: usize, options: LoopOptions) -> (String, Vec<(String, usize)>) {
    let model = ScriptedModel::new([call(tool, n), AssistantMessage::text("done")]);
    let mut registry = ToolRegistry::new();
    registry.register(LongTextTool).unwrap();
    registry.register(ShortTextTool).unwrap();
    let cuts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&cuts);
    let agent = ToolLoop::new(model, registry)
        .with_options(options)
        .with_observer(event_fn(move |event| {
            if let LoopEvent::ResultCut { full, kept, .. } = event {
                seen.lock().unwrap().push((full.clone(), *kept));
            }
        }));
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    let read = tool_results(&conversation)[0].to_owned();
    let cuts = cuts.lock().unwrap().clone();
    (read, cuts)
}

#[tokio::test]
async fn a_result_past_the_limit_keeps_its_head_and_tail_and_says_what_was_cut() {
    let options = LoopOptions::new().with_result_limit(Some(100));
    let (read, cuts) = run_with("long_text", 1_001, options).await;
    let whole = long_text(1_001);
    let (_, kept) = cuts[0];
    // Each end gives up at most the byte of a character it would split.
    assert!((98..=100).contains(&kept), "{kept}");
    let note = format!("\n\n[{} of 1001 bytes cut here]\n\n", 1_001 - kept);
    let (head, tail) = read
        .split_once(&note)
        .unwrap_or_else(|| panic!("the model is told how much was cut: {read}"));
    assert_eq!(head.len() + tail.len(), kept);
    assert!(whole.starts_with(head) && whole.ends_with(tail));
    assert!(head.starts_with('<') && tail.ends_with('>'));
    // The whole result is in the events.
    assert_eq!(cuts, vec![(whole, kept)]);
}

#[tokio::test]
async fn a_cut_never_splits_a_character() {
    for limit in 3..20 {
        let options = LoopOptions::new().with_result_limit(Some(limit));
        let (read, cuts) = run_with("long_text", 101, options).await;
        let (_, kept) = cuts[0];
        // Each end gives up at most the byte of a character it would split.
        assert!(kept <= limit && kept + 2 >= limit, "{limit}: kept {kept}");
        assert!(
            read.starts_with('<') && read.ends_with('>'),
            "{limit}: {read}"
        );
    }
}

#[tokio::test]
async fn a_result_within_the_limit_or_with_no_limit_is_untouched() {
    let (read, cuts) = run_with(
        "long_text",
        100,
        LoopOptions::new().with_result_limit(Some(100)),
    )
    .await;
    assert_eq!((read, cuts), (long_text(100), vec![]));
    let (read, cuts) = run_with(
        "long_text",
        200_000,
        LoopOptions::new().with_result_limit(None),
    )
    .await;
    assert_eq!((read.len(), cuts.len()), (200_000, 0));
    // The default limit applies when none is set.
    let (read, cuts) = run_with("long_text", DEFAULT_RESULT_LIMIT + 1, LoopOptions::new()).await;
    assert_eq!(cuts.len(), 1);
    assert!(read.len() < DEFAULT_RESULT_LIMIT + 100);
}

#[tokio::test]
async fn a_tools_own_limit_comes_before_the_runs() {
    let options = LoopOptions::new().with_result_limit(Some(500));
    let (read, cuts) = run_with("short_text", 1_000, options).await;
    assert_eq!(cuts[0].1, 10, "{read}");
    let (_, cuts) = run_with(
        "short_text",
        1_000,
        LoopOptions::new().with_result_limit(None),
    )
    .await;
    assert_eq!(cuts[0].1, 10);
}
