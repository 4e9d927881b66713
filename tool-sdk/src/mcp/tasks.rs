//! Long work as MCP tasks (the Tasks extension, `io.modelcontextprotocol/tasks`, as rmcp
//! implements it): a call of a [`long_running`](crate::define::ToolOptions::long_running) tool
//! from a client that declares the extension answers at once with a task, which the client
//! polls (`tasks/get`: working, then completed with the call's result) or cancels
//! (`tasks/cancel`: the tool's cancellation token is cancelled, and the call given up after at
//! most 5 s more). The tool's progress reports
//! become the task's status message.
//!
//! Tasks are kept in this process's memory for their time to live, counted from their creation
//! ([`McpServerBuilder::with_task_ttl`](super::McpServerBuilder::with_task_ttl), an hour by
//! default): a task still working then fails (its call dropped), and a finished one is
//! forgotten that long after it finished.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, CreateTaskResult};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use tokio_util::sync::CancellationToken;

use super::result::to_call_result;
use super::structured::Wrapping;
use crate::define::{ProgressSink, ProgressUpdate, ToolContext};
use crate::register::ToolRegistry;

/// How long a cancelled task's tool may take to stop after its token is cancelled.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// How long a task and its result are kept unless the server is told otherwise.
pub(super) const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// The tasks of one server.
#[derive(Clone)]
pub(super) struct Tasks {
    manager: TaskManager,
    ttl: Duration,
}

/// A call to run as a task: everything it needs, owned.
pub(super) struct TaskCall {
    pub(super) registry: Arc<ToolRegistry>,
    pub(super) name: String,
    pub(super) arguments: String,
    pub(super) call_id: String,
    pub(super) wrapping: Wrapping,
}

impl Tasks {
    /// No tasks yet; each kept for `ttl`.
    pub(super) fn new(ttl: Duration) -> Self {
        Self {
            manager: TaskManager::new(),
            ttl,
        }
    }

    /// Starts `call` as a task; what the client gets back at once.
    pub(super) fn start(&self, call: TaskCall) -> CreateTaskResult {
        let ttl_ms = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
        let options = TaskOptions::new().with_ttl_ms(ttl_ms);
        let task = self
            .manager
            .spawn(options, move |context| Box::pin(run(call, context)));
        CreateTaskResult::new(task)
    }

    pub(super) fn manager(&self) -> &TaskManager {
        &self.manager
    }
}

async fn run(call: TaskCall, task: TaskContext) -> Result<CallToolResult, TaskExit> {
    let cancel = CancellationToken::new();
    let progress: Arc<dyn ProgressSink> = Arc::new(StatusMessages(task.clone()));
    let context = ToolContext::new()
        .with_call_id(&call.call_id)
        .with_cancellation(&cancel)
        .with_progress(&progress);
    let running = call
        .registry
        .call_with(&call.name, &call.arguments, context);
    tokio::pin!(running);
    let result = tokio::select! {
        result = &mut running => result,
        () = task.cancelled() => {
            // The tool sees its token cancelled and gets a moment to stop cleanly (release
            // what it holds, say); then the call is dropped at its next await.
            cancel.cancel();
            let _ = tokio::time::timeout(CANCEL_GRACE, &mut running).await;
            return Err(TaskExit::Cancelled);
        }
    };
    Ok(to_call_result(result, call.wrapping))
}

/// A task's progress as its status message: "3 of 10: copying".
struct StatusMessages(TaskContext);

impl ProgressSink for StatusMessages {
    fn progress(&self, _tool: &str, _call_id: Option<&str>, update: ProgressUpdate) {
        let done = match update.total {
            Some(total) => format!("{} of {}", update.done, total),
            None => update.done.to_string(),
        };
        let message = match update.message {
            Some(message) => format!("{done}: {message}"),
            None => done,
        };
        self.0.set_status_message(message);
    }
}
