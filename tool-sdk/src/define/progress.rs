//! Progress a long tool reports as it goes: how much is done, of how much, and what it is
//! doing. Whoever runs the tool decides where it goes: the loop's events, an MCP client's
//! `notifications/progress`.

use std::fmt;
use std::sync::Arc;

/// One report of progress.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// How much is done, in the tool's own unit (files, bytes, percent); it only grows.
    pub done: f64,
    /// How much there is in all, when the tool knows.
    pub total: Option<f64>,
    /// What the tool is doing, for a person to read.
    pub message: Option<String>,
}

impl ProgressUpdate {
    /// `done` of `total` (when known), with what the tool is doing.
    pub fn new(done: f64, total: Option<f64>, message: Option<String>) -> Self {
        Self {
            done,
            total,
            message,
        }
    }
}

/// Where a call's progress goes: given to the call through
/// [`ToolContext::with_progress`](crate::define::ToolContext::with_progress). The loop and the MCP server each give one; an application
/// calling tools itself may give its own.
pub trait ProgressSink: Send + Sync {
    /// Takes one report of the call of `tool` (id `call_id`).
    fn progress(&self, tool: &str, call_id: Option<&str>, update: ProgressUpdate);
}

/// A tool's handle on its call's progress: a `#[context]` parameter. Reports go nowhere when
/// whoever runs the tool does not listen, so a tool may always report.
///
/// It is owned and cheap to clone, so an `async` tool may hand it to work it spawns.
///
/// # Examples
///
/// ```
/// use tool_sdk::define::Progress;
/// use tool_sdk::tool;
///
/// /// Copies files.
/// #[tool]
/// async fn copy_files(paths: Vec<String>, #[context] progress: Progress) -> String {
///     let total = paths.len() as f64;
///     for (done, path) in paths.iter().enumerate() {
///         // ... copy `path` ...
///         progress.report(done as f64 + 1.0, Some(total), Some(&format!("copied {path}")));
///     }
///     format!("copied {} files", paths.len())
/// }
/// ```
#[derive(Clone)]
pub struct Progress {
    to: Option<Arc<Target>>,
}

struct Target {
    sink: Arc<dyn ProgressSink>,
    tool: String,
    call_id: Option<String>,
}

impl Progress {
    /// A handle whose reports go nowhere.
    pub fn ignored() -> Self {
        Self { to: None }
    }

    /// A handle whose reports go to `sink`, naming the call of `tool` (id `call_id`).
    pub(crate) fn to(sink: &Arc<dyn ProgressSink>, tool: &str, call_id: Option<&str>) -> Self {
        Self {
            to: Some(Arc::new(Target {
                sink: Arc::clone(sink),
                tool: tool.to_owned(),
                call_id: call_id.map(str::to_owned),
            })),
        }
    }

    /// Reports that `done` of `total` (when known) is done, with what the tool is doing.
    pub fn report(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(target) = &self.to {
            let update = ProgressUpdate::new(done, total, message.map(str::to_owned));
            target
                .sink
                .progress(&target.tool, target.call_id.as_deref(), update);
        }
    }

    /// Whether anyone receives the reports: a tool may skip working out what it would say.
    pub fn is_listened_to(&self) -> bool {
        self.to.is_some()
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("listened_to", &self.is_listened_to())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Kept(Mutex<Vec<(String, Option<String>, ProgressUpdate)>>);

    impl ProgressSink for Kept {
        fn progress(&self, tool: &str, call_id: Option<&str>, update: ProgressUpdate) {
            let mut kept = self.0.lock().unwrap();
            kept.push((tool.to_owned(), call_id.map(str::to_owned), update));
        }
    }

    #[test]
    fn reports_reach_the_sink_named_by_tool_and_call() {
        let kept = Arc::new(Kept::default());
        let sink: Arc<dyn ProgressSink> = kept.clone();
        let progress = Progress::to(&sink, "copy", Some("c1"));
        assert!(progress.is_listened_to());
        progress.clone().report(1.0, Some(4.0), Some("one"));
        progress.report(2.0, None, None);
        let kept = kept.0.lock().unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].0, "copy");
        assert_eq!(kept[0].1.as_deref(), Some("c1"));
        assert_eq!(
            kept[0].2,
            ProgressUpdate {
                done: 1.0,
                total: Some(4.0),
                message: Some("one".into())
            }
        );
        assert_eq!(kept[1].2.total, None);
    }

    #[test]
    fn an_ignored_handle_reports_to_no_one() {
        let progress = Progress::ignored();
        assert!(!progress.is_listened_to());
        progress.report(1.0, None, None);
    }
}
