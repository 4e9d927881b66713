//! A call through the registry is a future like any other: nothing runs until it is polled.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tool_sdk::{define_tool, ToolRegistry};

fn counting_registry(runs: &Arc<AtomicUsize>) -> ToolRegistry {
    let runs = Arc::clone(runs);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Counts its runs.
            #[tool(name = "count")]
            move || -> usize { runs.fetch_add(1, Ordering::SeqCst) + 1 }
        ))
        .unwrap();
    registry
}

#[tokio::test]
async fn a_synchronous_tool_runs_when_its_call_is_first_polled() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = counting_registry(&runs);
    let call = registry.call("count", "{}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "calling started nothing");
    let output = call.await.unwrap();
    assert_eq!(output.content(), "1");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_dropped_unpolled_never_runs_its_tool() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = counting_registry(&runs);
    drop(registry.call("count", "{}"));
    let timeout = registry.call_with("count", "{}", tool_sdk::ToolContext::new());
    drop(timeout);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // Errors found before the tool would run are as lazy, and as classified.
    let unknown = registry.call("counter", "{}").await.unwrap_err();
    assert!(
        matches!(unknown, tool_sdk::ToolError::UnknownTool { .. }),
        "{unknown:?}"
    );
}
