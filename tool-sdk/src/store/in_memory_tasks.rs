//! Tasks in this process's memory: the rules of the durable stores, without the durability.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use crate::store::{StoreError, StoreFuture, StoredTask, TaskEnd, TaskState, TaskStore};

/// A [`TaskStore`] in this process's memory (an MCP server's default): tasks survive nothing,
/// but follow the rules of the durable stores. A clone shares the tasks.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::store::{InMemoryTaskStore, TaskState, TaskStore};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = InMemoryTaskStore::new();
/// let hour = Duration::from_secs(3600);
/// store.create_task("task-1", hour, Duration::from_secs(30)).await?;
/// let task = store.load_task("task-1").await?.expect("just created");
/// assert_eq!(task.state, TaskState::Working { cancel_requested: false });
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct InMemoryTaskStore {
    tasks: Arc<Mutex<MemoryTasks>>,
}

impl InMemoryTaskStore {
    /// A store without tasks.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> MutexGuard<'_, MemoryTasks> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every task, by id.
#[derive(Debug, Default)]
struct MemoryTasks(HashMap<String, MemoryTask>);

#[derive(Debug)]
struct MemoryTask {
    lease_until: Instant,
    expires_at: Instant,
    created_at: SystemTime,
    updated_at: SystemTime,
    status_message: Option<String>,
    cancel_requested: bool,
    end: Option<TaskEnd>,
}

impl MemoryTasks {
    /// The task, unless it is unknown or past its time to live.
    fn live(&mut self, id: &str) -> Option<&mut MemoryTask> {
        let now = Instant::now();
        self.0.retain(|_, task| task.expires_at > now);
        self.0.get_mut(id)
    }
}

fn later(lease: Duration) -> Instant {
    let now = Instant::now();
    // A duration too long to add is as good as forever.
    now.checked_add(lease)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

impl TaskStore for InMemoryTaskStore {
    fn create_task<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'a, SystemTime> {
        let now = SystemTime::now();
        let task = MemoryTask {
            lease_until: later(lease),
            expires_at: later(ttl),
            created_at: now,
            updated_at: now,
            status_message: None,
            cancel_requested: false,
            end: None,
        };
        let mut tasks = self.tasks();
        let created = match tasks.live(id) {
            Some(_) => Err(StoreError::Backend(format!("a task `{id}` exists already"))),
            None => {
                tasks.0.insert(id.to_owned(), task);
                Ok(now)
            }
        };
        Box::pin(async move { created })
    }

    fn renew_task<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, bool> {
        let mut tasks = self.tasks();
        let stop = match tasks.live(id) {
            Some(task) if task.end.is_none() && task.lease_until > Instant::now() => {
                task.lease_until = later(lease);
                if let Some(message) = status_message {
                    if task.status_message.as_deref() != Some(message) {
                        task.status_message = Some(message.to_owned());
                        task.updated_at = SystemTime::now();
                    }
                }
                task.cancel_requested
            }
            _ => true,
        };
        Box::pin(async move { Ok(stop) })
    }

    fn end_task<'a>(
        &'a self,
        id: &'a str,
        end: &'a TaskEnd,
        status_message: Option<&'a str>,
    ) -> StoreFuture<'a, ()> {
        let mut tasks = self.tasks();
        if let Some(task) = tasks.live(id) {
            if task.end.is_none() && task.lease_until > Instant::now() {
                task.end = Some(end.clone());
                if let Some(message) = status_message {
                    task.status_message = Some(message.to_owned());
                }
                task.updated_at = SystemTime::now();
            }
        }
        Box::pin(async { Ok(()) })
    }

    fn request_task_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let mut tasks = self.tasks();
        let known = tasks.live(id).map(|task| task.cancel_requested = true);
        Box::pin(async move { Ok(known.is_some()) })
    }

    fn load_task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>> {
        let mut tasks = self.tasks();
        let found = tasks.live(id).map(|task| {
            let state = match (&task.end, task.lease_until > Instant::now()) {
                (Some(end), _) => TaskState::Ended(end.clone()),
                (None, true) => TaskState::Working {
                    cancel_requested: task.cancel_requested,
                },
                (None, false) => TaskState::Abandoned,
            };
            StoredTask::new(state, task.created_at, task.updated_at)
                .with_status_message(task.status_message.clone())
        });
        Box::pin(async move { Ok(found) })
    }
}
