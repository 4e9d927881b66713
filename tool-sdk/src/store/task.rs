//! Long work that outlives the request that started it (an MCP task): where it stands, kept
//! where a restart or another replica finds it.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::store::{StoreError, StoreFuture};

/// Where long work kept in a [`TaskStore`] stands.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskState {
    /// Its owner is at work on it, and renewing its lease.
    Working {
        /// Whether someone asked for it to stop: its owner stops it at its next renewal.
        cancel_requested: bool,
    },
    /// It ended.
    Ended(TaskEnd),
    /// It was working when its owner stopped renewing it (the process crashed or restarted):
    /// nothing will finish it.
    Abandoned,
}

/// How long work ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskEnd {
    /// It finished with this result (for an MCP task, the tool call's result).
    Completed(Value),
    /// It failed with this error (for an MCP task, a JSON-RPC error object).
    Failed(Value),
    /// It stopped because someone asked it to.
    Cancelled,
}

/// Long work as a [`TaskStore`] keeps it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StoredTask {
    /// Where it stands.
    pub state: TaskState,
    /// What its owner last said about it ("3 of 10: copying").
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: SystemTime,
    /// When it last changed (created, renewed with a new status message, ended).
    pub updated_at: SystemTime,
}

impl StoredTask {
    /// A task in `state`, created at `created_at` and last changed at `updated_at`: for a
    /// store of the application's own to build what it read back.
    pub fn new(state: TaskState, created_at: SystemTime, updated_at: SystemTime) -> Self {
        Self {
            state,
            status_message: None,
            created_at,
            updated_at,
        }
    }

    /// The same task, with what its owner last said about it.
    pub fn with_status_message(mut self, status_message: Option<String>) -> Self {
        self.status_message = status_message;
        self
    }
}

/// Where long work (an MCP server's tasks) is kept, so that its result survives the process
/// that ran it and every replica sees it.
///
/// Each task is owned by the store instance that created it, under a lease its owner renews
/// while it works; a task whose lease ran out before it ended is
/// [abandoned](TaskState::Abandoned). A task is forgotten once its time to live, counted from
/// its creation, has passed. Ids are the caller's, and must not be guessable: whoever knows
/// one may read the task and cancel it.
///
/// [`InMemoryTaskStore`](crate::store::InMemoryTaskStore) keeps tasks in this process (an MCP
/// server's default); the SQLite and PostgreSQL run stores are task stores too.
pub trait TaskStore: Send + Sync {
    /// A task starts, working, owned by this instance for `lease` and kept for `ttl`. Gives
    /// its creation time, as the store's clock tells it.
    fn create_task<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'a, SystemTime>;

    /// Its owner is still at work: the lease is extended, and `status_message` (when given)
    /// kept. Says whether the owner must stop: someone asked for that, or the task is no longer
    /// its to renew (it ended, or its lease ran out, so that it reads as abandoned for good: a
    /// task reported failed never comes back).
    fn renew_task<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, bool>;

    /// The task ended, its owner's last word `status_message` (when given) kept. A task that
    /// ended already keeps its first end, and one whose lease ran out stays abandoned.
    fn end_task<'a>(
        &'a self,
        id: &'a str,
        end: &'a TaskEnd,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, ()>;

    /// Asks the task's owner, in whichever process, to stop it (seen at its next renewal).
    /// `false` when the store knows no such task.
    fn request_task_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;

    /// The task as it stands, or `None` when the store knows no such task (never created, or
    /// past its time to live).
    fn load_task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>>;
}

/// A task's end as stored: its state's name and the JSON it carries.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn encode_end(end: &TaskEnd) -> (&'static str, Option<String>) {
    match end {
        TaskEnd::Completed(result) => ("completed", Some(result.to_string())),
        TaskEnd::Failed(error) => ("failed", Some(error.to_string())),
        TaskEnd::Cancelled => ("cancelled", None),
    }
}

/// A task's state from its stored columns: the state's name, the JSON of its end, whether
/// cancellation was asked, and whether its lease ran out.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn decode_state(
    state: &str,
    outcome: Option<&str>,
    cancel_requested: bool,
    lease_expired: bool,
) -> Result<TaskState, StoreError> {
    let json = |text: Option<&str>| -> Result<Value, StoreError> {
        serde_json::from_str(text.unwrap_or("null"))
            .map_err(|e| StoreError::Backend(format!("a stored task is unreadable: {e}")))
    };
    Ok(match state {
        "working" if lease_expired => TaskState::Abandoned,
        "working" => TaskState::Working { cancel_requested },
        "completed" => TaskState::Ended(TaskEnd::Completed(json(outcome)?)),
        "failed" => TaskState::Ended(TaskEnd::Failed(json(outcome)?)),
        "cancelled" => TaskState::Ended(TaskEnd::Cancelled),
        other => {
            return Err(StoreError::Backend(format!(
                "a stored task has an unknown state `{other}`"
            )))
        }
    })
}
