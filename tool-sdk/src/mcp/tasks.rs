//! Long work as MCP tasks (the Tasks extension, `io.modelcontextprotocol/tasks`, as rmcp
//! speaks it): a call of a [`long_running`](crate::define::ToolOptions::long_running) tool
//! from a client that declares the extension answers at once with a task, which the client
//! polls (`tasks/get`: working, with the tool's progress as status message, then completed
//! with the call's result) or cancels (`tasks/cancel`: the tool's cancellation token is
//! cancelled, and the call given up after at most 5 s more). A task is reported as what
//! happened: cancelled when its tool stopped (with an error) or was given up, completed with
//! its result when the tool finished its work anyway.
//!
//! Where a task stands is kept in the server's [`TaskStore`] before the client hears of it,
//! and its end as soon as it ends: with a durable store, a task's result outlives the process,
//! any replica answers for any task, and a task whose server stopped before it ended is
//! reported failed once its lease has run out. A cancel reaching another replica reaches the
//! task at its server's next renewal.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, ErrorData, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::result::to_call_result;
use super::structured::Wrapping;
use super::task_settings::McpTasks;
use crate::define::{ProgressSink, ProgressUpdate, ToolResult};
use crate::model::ToolCall;
use crate::register::ToolRegistry;
use crate::run::{Executor, Gated};
use crate::store::{random_token, StoreError, TaskEnd, TaskState, TaskStore};

/// How long a cancelled task's tool may take to stop after its token is cancelled.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// How often storing a task's end is tried.
const END_ATTEMPTS: u32 = 3;

/// The tasks of one server: the store that keeps them, and those running in this process.
#[derive(Clone)]
pub(super) struct Tasks {
    settings: McpTasks,
    running: Arc<Mutex<HashMap<String, Running>>>,
}

/// A task running in this process: how to stop it, and what it last said.
#[derive(Clone, Default)]
struct Running {
    cancel: CancellationToken,
    status: Arc<Mutex<Option<String>>>,
}

impl Running {
    fn status(&self) -> Option<String> {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A call to run as a task: everything it needs, owned.
pub(super) struct TaskCall {
    pub(super) registry: Arc<ToolRegistry>,
    pub(super) name: String,
    pub(super) arguments: String,
    pub(super) call_id: String,
    pub(super) wrapping: Wrapping,
    /// How the gate let it through, for its span.
    pub(super) gated: Gated,
}

impl Tasks {
    pub(super) fn new(settings: McpTasks) -> Self {
        Self {
            settings,
            running: Arc::default(),
        }
    }

    fn store(&self) -> &dyn TaskStore {
        &*self.settings.store
    }

    /// Starts `call` as a task, kept in the store before the client hears of it; what the
    /// client gets back at once.
    pub(super) async fn start(&self, call: TaskCall) -> Result<CreateTaskResult, ErrorData> {
        let id = random_token().map_err(store_failed)?;
        let McpTasks { ttl, lease, .. } = self.settings;
        let created_at = self
            .store()
            .create_task(&id, ttl, lease)
            .await
            .map_err(store_failed)?;
        let running = Running::default();
        self.running_now().insert(id.clone(), running.clone());
        tokio::spawn(self.clone().run(id.clone(), call, running));
        let stamp = timestamp(created_at);
        let task =
            Task::new(id, TaskStatus::Working, stamp.clone(), stamp).with_ttl_ms(millis(ttl));
        Ok(CreateTaskResult::new(task))
    }

    /// `tasks/get`: the task as it stands.
    pub(super) async fn get(&self, id: &str) -> Result<DetailedTask, ErrorData> {
        let stored = self
            .store()
            .load_task(id)
            .await
            .map_err(store_failed)?
            .ok_or_else(|| unknown_task(id))?;
        let mut task = Task::new(
            id,
            TaskStatus::Working,
            timestamp(stored.created_at),
            timestamp(stored.updated_at),
        )
        .with_ttl_ms(millis(self.settings.ttl));
        // This process's word on a task it runs is fresher than the store's, renewed now and
        // then.
        let here = self.running_now().get(id).and_then(Running::status);
        task.status_message = here.or(stored.status_message);
        let payload = match stored.state {
            TaskState::Working { .. } => TaskPayload::Working,
            TaskState::Ended(TaskEnd::Completed(result)) => TaskPayload::Completed {
                result: object(result),
            },
            TaskState::Ended(TaskEnd::Failed(error)) => TaskPayload::Failed {
                error: object(error),
            },
            TaskState::Ended(TaskEnd::Cancelled) => TaskPayload::Cancelled,
            TaskState::Abandoned => TaskPayload::Failed {
                error: error_object("the server stopped before the task finished"),
            },
        };
        Ok(DetailedTask::new(task, payload))
    }

    /// `tasks/update`: this server's tasks never wait for input, so there is nothing to
    /// deliver; an unknown task is still an error.
    pub(super) async fn update(&self, id: &str) -> Result<(), ErrorData> {
        match self.store().load_task(id).await.map_err(store_failed)? {
            Some(_) => Ok(()),
            None => Err(unknown_task(id)),
        }
    }

    /// `tasks/cancel`: stops the task here, or asks the replica running it to.
    pub(super) async fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        let here = self
            .running_now()
            .get(id)
            .map(|running| running.cancel.clone());
        if let Some(cancel) = here {
            cancel.cancel();
            return Ok(());
        }
        match self.store().request_task_cancel(id).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(unknown_task(id)),
            Err(error) => Err(store_failed(error)),
        }
    }

    fn running_now(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs the task to its end, renewing its lease meanwhile, and keeps the end: tried again
    /// twice when the store fails, since a lost end reads as an abandoned task.
    async fn run(self, id: String, call: TaskCall, running: Running) {
        let end = self.work(&id, call, &running).await;
        let last_word = running.status();
        for attempt in 1..=END_ATTEMPTS {
            match self.store().end_task(&id, &end, last_word.as_deref()).await {
                Ok(()) => break,
                Err(error) if attempt == END_ATTEMPTS => {
                    tracing::error!(task = %id, %error, "the end of a task could not be stored");
                }
                Err(error) => {
                    tracing::warn!(task = %id, %error, attempt, "storing a task's end failed");
                    tokio::time::sleep(Duration::from_millis(200) * attempt).await;
                }
            }
        }
        self.running_now().remove(&id);
    }

    async fn work(&self, id: &str, call: TaskCall, running: &Running) -> TaskEnd {
        let progress: Arc<dyn ProgressSink> = Arc::new(StatusMessages(running.clone()));
        let executor = Executor {
            progress: Some(&progress),
            cancel: Some(&running.cancel),
            ..Executor::plain(&*call.registry)
        };
        let call_future = executor.one(
            ToolCall::new(
                call.call_id.as_str(),
                call.name.as_str(),
                call.arguments.as_str(),
            ),
            call.call_id.clone(),
            call.gated.clone(),
        );
        tokio::pin!(call_future);
        let renewals = self.renew_while_working(id, running);
        tokio::pin!(renewals);
        let out_of_time = tokio::time::sleep(self.settings.work_time());
        tokio::select! {
            biased;
            () = running.cancel.cancelled() => {
                // The tool sees its token cancelled and gets a moment to stop cleanly (release
                // what it holds, say); then the call is dropped at its next await.
                match tokio::time::timeout(CANCEL_GRACE, &mut call_future).await {
                    // The tool finished its work anyway (it had, or it does not watch its
                    // token): what it did happened, and its result says what.
                    Ok(Ok(output)) => completed(Ok(output), call.wrapping),
                    // It stopped (its error says so), or was stopped.
                    Ok(Err(_)) | Err(_) => TaskEnd::Cancelled,
                }
            }
            result = &mut call_future => completed(result, call.wrapping),
            () = out_of_time => TaskEnd::Failed(Value::Object(error_object(
                "the task ran out of time before its time to live ended, and was stopped",
            ))),
            never = &mut renewals => match never {},
        }
    }

    /// Renews the task's lease every third of it, with its latest status message, until the
    /// task ends; stops the task when the store says so (someone asked for that on another
    /// replica, or the lease ran out and the task reads as abandoned). Never returns.
    async fn renew_while_working(&self, id: &str, running: &Running) -> Infallible {
        let lease = self.settings.lease;
        let every = (lease / 3).max(Duration::from_millis(10));
        let mut said: Option<String> = None;
        loop {
            tokio::time::sleep(every).await;
            let status = running.status();
            let news = status
                .as_deref()
                .filter(|now| said.as_deref() != Some(*now));
            match self.store().renew_task(id, lease, news).await {
                Ok(stop) => {
                    said = status;
                    if stop {
                        running.cancel.cancel();
                    }
                }
                Err(error) => tracing::warn!(task = %id, %error, "a task's lease was not renewed"),
            }
        }
    }
}

/// The end of a task whose tool returned `result`: completed with the call's result, an error
/// of the tool's included (as `isError`).
fn completed(result: ToolResult, wrapping: Wrapping) -> TaskEnd {
    let result: CallToolResult = to_call_result(result, wrapping);
    match serde_json::to_value(&result) {
        Ok(result) => TaskEnd::Completed(result),
        Err(error) => TaskEnd::Failed(Value::Object(error_object(&format!(
            "the tool's result could not be encoded: {error}"
        )))),
    }
}

/// A task's progress as its status message: "3 of 10: copying".
struct StatusMessages(Running);

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
        *self.0.status.lock().unwrap_or_else(PoisonError::into_inner) = Some(message);
    }
}

/// A time as the protocol writes it: ISO 8601, UTC. A time a store holds out of the
/// calendar's range (a corrupt row) reads as the epoch.
fn timestamp(at: SystemTime) -> String {
    let since = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp(seconds, since.subsec_nanos())
        .unwrap_or_default()
        .to_rfc3339()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => JsonObject::from_iter([("value".to_owned(), other)]),
    }
}

/// A JSON-RPC internal error object saying `message`.
fn error_object(message: &str) -> JsonObject {
    object(json!({"code": -32603, "message": message}))
}

fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

fn store_failed(error: StoreError) -> ErrorData {
    ErrorData::internal_error(format!("the task store failed: {error}"), None)
}
