//! Reads together, writes alone: with `Concurrency::ReadsTogether`, calls of read-only tools
//! run at the same time and every other call runs alone, after every call before it and
//! before any after it, whether the reply came whole or streamed; results stay in reply order.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tool_sdk::run::{Concurrency, LoopOptions, LoopStatus};
use tool_sdk::{tools, AssistantMessage, Message, ScriptedModel, ToolCall, ToolLoop, ToolRegistry};
use tool_sdk_tests::replies::tool_results;

/// What happened, in order: a call's position and whether it started (or ended).
#[derive(Default)]
struct Log(Mutex<Vec<(usize, bool)>>);

impl Log {
    async fn work(&self, position: usize, pause: u64) -> usize {
        self.0.lock().unwrap().push((position, true));
        tokio::time::sleep(Duration::from_millis(pause)).await;
        self.0.lock().unwrap().push((position, false));
        position
    }
}

#[tools]
impl Log {
    /// Looks a record up.
    #[tool(read_only)]
    async fn lookup(&self, position: usize) -> usize {
        self.work(position, 5).await
    }

    /// Changes a record.
    #[tool]
    async fn update(&self, position: usize) -> usize {
        self.work(position, 2).await
    }
}

/// Sixteen calls: runs of reads of 3, 2, 4 and 3 between writes, two writes side by side.
const KINDS: &str = "RRRWRRWWRRRRWRRR";

async fn run(streaming: bool) -> Vec<(usize, bool)> {
    let calls: Vec<ToolCall> = KINDS
        .chars()
        .enumerate()
        .map(|(position, kind)| {
            let tool = if kind == 'R' { "lookup" } else { "update" };
            ToolCall::new(
                format!("c{position}"),
                tool,
                format!(r#"{{"position": {position}}}"#),
            )
        })
        .collect();
    let model = ScriptedModel::new([
        AssistantMessage::with_tool_calls(calls),
        AssistantMessage::text("done"),
    ]);
    let log = Arc::new(Log::default());
    let mut registry = ToolRegistry::new();
    registry.register_set(Arc::clone(&log)).unwrap();
    let agent = ToolLoop::new(model, registry).with_options(
        LoopOptions::new()
            .with_concurrency(Concurrency::ReadsTogether(3))
            .with_streaming(streaming),
    );
    let mut conversation = vec![Message::user("go")];
    let outcome = agent.run(&mut conversation).await;
    assert!(
        matches!(outcome.status, LoopStatus::Answered(_)),
        "{:?}",
        outcome.status
    );
    // One result a call, in reply order, each the call's own.
    let expected: Vec<String> = (0..KINDS.len()).map(|p| p.to_string()).collect();
    assert_eq!(tool_results(&conversation), expected);
    let log = log.0.lock().unwrap().clone();
    log
}

/// Checks `log` against the rule, and returns the most calls that ran at once.
fn check(log: &[(usize, bool)]) -> usize {
    let kinds: Vec<char> = KINDS.chars().collect();
    let at = |position: usize, started: bool| {
        log.iter()
            .position(|&event| event == (position, started))
            .unwrap_or_else(|| panic!("call {position} never {started}"))
    };
    for (position, &kind) in kinds.iter().enumerate() {
        if kind != 'W' {
            continue;
        }
        let (start, end) = (at(position, true), at(position, false));
        for other in 0..kinds.len() {
            if other < position {
                assert!(
                    at(other, false) < start,
                    "call {other} had not ended when write {position} began: {log:?}"
                );
            } else if other > position {
                assert!(
                    at(other, true) > end,
                    "call {other} began before write {position} ended: {log:?}"
                );
            }
        }
    }
    let mut running = 0_usize;
    let mut most = 0;
    for &(_, started) in log {
        if started {
            running += 1;
            most = most.max(running);
        } else {
            running -= 1;
        }
    }
    most
}

#[tokio::test]
async fn reads_run_together_and_writes_alone_in_reply_order() {
    for streaming in [false, true] {
        let log = run(streaming).await;
        assert_eq!(log.len(), 2 * KINDS.len());
        // The run of four reads ran three at a time: the limit, reached.
        assert_eq!(check(&log), 3, "streaming {streaming}: {log:?}");
    }
}
