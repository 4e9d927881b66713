//! The loop's entry points: a run started or resumed, one shape for both, `agent.run(…)` or
//! `agent.resume(…)`, with cancellation and memory as options, awaited for its outcome; and
//! `agent.recover(…)`, which rolls back what a crash interrupted.

use std::future::{Future, IntoFuture};

use tokio_util::sync::CancellationToken;

use crate::gate::{GateError, ToolCallDecisions};
use crate::model::Message;
use crate::run::observe::Observer as _;
use crate::run::{Conversation, LoopOutcome, RecoveredRun, ToolLoop};
use crate::store::{ChatMemory, Orphans, RunId, StoreError};

impl ToolLoop {
    /// Finds runs of this loop's store that stopped in the middle (their process crashed) and
    /// rolls back what each recorded, newest first; each run is then finished.
    ///
    /// Each rollback is recorded once done, so a recovery that itself crashes is taken up by
    /// the next one where it stopped; only a rollback interrupted between doing and recording
    /// runs again, with the same idempotency key
    /// ([`RecordEntry::idempotency_key`](crate::store::RecordEntry::idempotency_key)).
    /// Runs are claimed one at a time, atomically, so replicas recovering at once share the
    /// work and never roll back one run twice. The claim's lease is renewed for as long as its
    /// rollback takes, during each action too, and every action is bounded by its timeout
    /// ([`with_compensation_timeout`](Self::with_compensation_timeout)). A timed-out action is
    /// recorded as such and its run released, left for a later recovery (by any owner, this one
    /// included, once a lease has passed; or at the next start) to try again with the same key,
    /// up to
    /// [`MAX_COMPENSATION_ATTEMPTS`](crate::store::MAX_COMPENSATION_ATTEMPTS) in all; it
    /// is then recorded as failed and reported, not tried again. A run this pass lost to
    /// another owner (this process stalled past its lease) or released is not claimed again in
    /// the same pass, so a pass always ends. Paused runs are left alone.
    ///
    /// `which`: [`Orphans::Expired`] with replicas (runs whose lease ran out);
    /// [`Orphans::All`] for a single process at start-up. Without a store there is nothing to
    /// recover.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_sdk::store::{InMemoryRunStore, Orphans};
    /// use tool_sdk::run::ToolLoop;
    /// use tool_sdk::{ScriptedModel, ToolRegistry};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
    ///     .with_store(Arc::new(InMemoryRunStore::new()));
    /// // At start-up, before serving: roll back what the previous process left half done.
    /// let recovered = agent.recover(Orphans::All).await.unwrap();
    /// assert!(recovered.is_empty());
    /// # }
    /// ```
    pub async fn recover(&self, which: Orphans) -> Result<Vec<RecoveredRun>, StoreError> {
        self.recover_orphans(which).await
    }

    /// A run of the loop on `conversation`, the caller's (`&mut Vec<Message>`, appended to in
    /// place) or one begun from a prompt (`"…"`); see [`Conversation`]. Await it for the
    /// [`LoopOutcome`]; before that, [`with_cancel`](Run::with_cancel) and
    /// [`with_memory`](Run::with_memory) set its options.
    ///
    /// ```
    /// use tool_sdk::{tool, LoopStatus, ToolLoop};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tool_sdk::run::SetupError> {
    /// let agent = ToolLoop::new(
    ///     tool_sdk::ScriptedModel::from_script(r#"add {"a": 2, "b": 3}
    ///         2 + 3 = 5"#)?,
    ///     (AddTool,).into_registry()?,
    /// );
    /// let mut conversation = vec![tool_sdk::Message::user("What is 2 + 3?")];
    /// let outcome = agent.run(&mut conversation).await;
    /// assert!(matches!(&outcome.status, LoopStatus::Answered(reply) if reply.text.as_deref() == Some("2 + 3 = 5")));
    /// assert_eq!(conversation.len(), 4); // user, assistant (call), tool result, assistant (answer)
    /// # Ok(())
    /// # }
    /// # use tool_sdk::register::IntoRegistry as _;
    /// ```
    pub fn run<'a>(
        &'a self,
        conversation: impl Into<Conversation<'a>>,
    ) -> Run<'a, impl Start<'a, LoopOutcome>> {
        Run {
            conversation: conversation.into(),
            options: RunOptions::default(),
            start: move |options, conversation| self.start_run(options, conversation),
        }
    }

    /// Resumes the run paused under `run` with `decisions`: the paused reply and its results
    /// are appended to `conversation`, and the run goes on. Await it for the [`LoopOutcome`];
    /// before that, [`with_cancel`](Resume::with_cancel) and
    /// [`with_memory`](Resume::with_memory) set its options.
    ///
    /// What resumes is the copy this loop kept — in its store, where any process sharing the
    /// store may resume it, or, without a store, in this loop's own in-memory run store — and the decisions are checked
    /// against it before it is taken: a pause resumes once, however many resumes race for it or
    /// repeat it (the others get [`GateError::AlreadyDecided`], even once the run has paused
    /// again on the same calls). Decisions that do not fit are refused, nothing runs, and the
    /// run stays paused for corrected ones.
    pub fn resume<'a>(
        &'a self,
        conversation: impl Into<Conversation<'a>>,
        run: &'a RunId,
        decisions: &'a ToolCallDecisions,
    ) -> Resume<'a, impl Start<'a, Result<LoopOutcome, GateError>>> {
        Resume {
            conversation: conversation.into(),
            options: RunOptions::default(),
            start: move |options, conversation| {
                self.resume_run(options, conversation, run, decisions)
            },
        }
    }

    /// A run, once its options are set. Neither an `async fn` (see `drive`) nor boxed: it is
    /// every run's future, and a large allocation per run costs more than a whole round.
    #[allow(clippy::manual_async_fn)]
    fn start_run<'a>(
        &'a self,
        options: RunOptions<'a>,
        mut conversation: Conversation<'a>,
    ) -> impl Future<Output = LoopOutcome> + Send + 'a {
        async move {
            let given = conversation.messages_mut();
            let mut recalled = match recall(&options, given).await {
                Ok(recalled) => recalled,
                Err(error) => return LoopOutcome::not_started(RunId::next(), error),
            };
            let messages = recalled.as_mut().unwrap_or(given);
            if self.observers.watched() {
                self.observers
                    .run_started(&self.callees.model.description(), messages);
            }
            let remembered = options.memory.map(|(_, id)| id);
            let mut outcome = self.start(messages, remembered, &options.cancel).await;
            if self.deciding.approver.is_some() || options.memory.is_some() {
                // Boxed: only a run with an approver or a memory goes there, and its state held
                // inline would make every run's future larger.
                outcome = Box::pin(self.settle(&options, given, recalled, outcome)).await;
            }
            self.observers.run_ended(&outcome);
            outcome
        }
    }

    /// A resume, once its options are set (not an `async fn`, as above).
    #[allow(clippy::manual_async_fn)]
    fn resume_run<'a>(
        &'a self,
        options: RunOptions<'a>,
        mut conversation: Conversation<'a>,
        run: &'a RunId,
        decisions: &'a ToolCallDecisions,
    ) -> impl Future<Output = Result<LoopOutcome, GateError>> + Send + 'a {
        async move {
            let given = conversation.messages_mut();
            let mut recalled = recall(&options, given).await?;
            let messages = recalled.as_mut().unwrap_or(given);
            let mut outcome = self
                .resume_decided(messages, run, decisions, &options.cancel)
                .await?;
            if self.deciding.approver.is_some() || options.memory.is_some() {
                outcome = Box::pin(self.settle(&options, given, recalled, outcome)).await;
            }
            self.observers.run_ended(&outcome);
            Ok(outcome)
        }
    }
}

/// A run about to start: set its options, then await it. See [`ToolLoop::run`]. `S` starts
/// the run once its options are set (a closure of the loop's, which no caller names).
#[must_use = "a run does nothing until it is awaited"]
pub struct Run<'a, S> {
    conversation: Conversation<'a>,
    options: RunOptions<'a>,
    start: S,
}

/// A paused run about to resume: set its options, then await it. See
/// [`ToolLoop::resume`]. `S` resumes the run once its options are set.
#[must_use = "a resume does nothing until it is awaited"]
pub struct Resume<'a, S> {
    conversation: Conversation<'a>,
    options: RunOptions<'a>,
    start: S,
}

/// The options of a [`Run`] or a [`Resume`], set through their `with_*` methods.
#[derive(Default)]
pub struct RunOptions<'a> {
    cancel: CancellationToken,
    memory: Option<(&'a dyn ChatMemory, &'a str)>,
}

/// The setters of [`Run`] and [`Resume`], the same for both.
macro_rules! run_options {
    ($builder:ident) => {
        impl<'a, S> $builder<'a, S> {
            /// Runs until the run ends or `cancel` is cancelled: then no model call or tool
            /// starts, the round in flight drains, and what already ran is rolled back.
            ///
            /// # Cancel safety
            ///
            /// Cancel through the token, not by dropping the future: the token lets the round
            /// in flight drain and what already ran be rolled back.
            pub fn with_cancel(mut self, cancel: &CancellationToken) -> Self {
                self.options.cancel = cancel.clone();
                self
            }

            /// Runs on the conversation `id` of `memory`: loads it, appends the messages given
            /// to the run (a prompt, say), runs, and stores the conversation back whatever the
            /// outcome (it is valid at every outcome). A conversation the caller holds ends as
            /// the whole conversation.
            ///
            /// A conversation that cannot be loaded stops the run before anything runs
            /// ([`LoopStatus::StoreFailed`](crate::run::LoopStatus::StoreFailed)); one that
            /// cannot be stored back is reported in [`LoopOutcome::store_error`].
            pub fn with_memory(mut self, memory: &'a dyn ChatMemory, id: &'a str) -> Self {
                self.options.memory = Some((memory, id));
                self
            }
        }
    };
}

run_options!(Run);
run_options!(Resume);

/// How a [`Run`] or a [`Resume`] begins once its options are set: the future of the run,
/// with `T` its output. [`ToolLoop::run`] and [`ToolLoop::resume`] give it; no caller names or
/// implements it.
pub trait Start<'a, T> {
    /// The run's future.
    type Future: Future<Output = T> + Send + 'a;

    /// Begins the run.
    fn start(self, options: RunOptions<'a>, conversation: Conversation<'a>) -> Self::Future;
}

impl<'a, T, S, F> Start<'a, T> for S
where
    S: FnOnce(RunOptions<'a>, Conversation<'a>) -> F,
    F: Future<Output = T> + Send + 'a,
{
    type Future = F;

    fn start(self, options: RunOptions<'a>, conversation: Conversation<'a>) -> F {
        self(options, conversation)
    }
}

impl<'a, S: Start<'a, LoopOutcome>> IntoFuture for Run<'a, S> {
    type Output = LoopOutcome;
    type IntoFuture = S::Future;

    fn into_future(self) -> S::Future {
        self.start.start(self.options, self.conversation)
    }
}

impl<'a, S: Start<'a, Result<LoopOutcome, GateError>>> IntoFuture for Resume<'a, S> {
    type Output = Result<LoopOutcome, GateError>;
    type IntoFuture = S::Future;

    fn into_future(self) -> S::Future {
        self.start.start(self.options, self.conversation)
    }
}

/// With a memory, the conversation the run goes on: the memory's, with the given messages
/// appended (taken out of `given`, which [`keep`] then fills with the whole conversation).
/// Without one, the run goes on the given conversation itself, in place.
async fn recall(
    options: &RunOptions<'_>,
    given: &mut Vec<Message>,
) -> Result<Option<Vec<Message>>, StoreError> {
    let Some((memory, id)) = options.memory else {
        return Ok(None);
    };
    let mut messages = memory.load(id).await?;
    messages.append(given);
    Ok(Some(messages))
}

impl ToolLoop {
    /// What a run with an approver or a memory does once it stopped: the approver decides each
    /// pause and the run goes on, then the conversation is stored back in the memory and
    /// handed to the caller.
    async fn settle(
        &self,
        options: &RunOptions<'_>,
        given: &mut Vec<Message>,
        mut recalled: Option<Vec<Message>>,
        mut outcome: LoopOutcome,
    ) -> LoopOutcome {
        let messages = recalled.as_mut().unwrap_or(given);
        outcome = self.decide_pauses(messages, outcome, &options.cancel).await;
        if let (Some((memory, id)), Some(messages)) = (options.memory, recalled) {
            if let Err(error) = memory.store(id, &messages).await {
                outcome.store_error.get_or_insert(error);
            }
            *given = messages;
        }
        outcome
    }
}

impl<S> std::fmt::Debug for Run<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("conversation", &self.conversation)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl<S> std::fmt::Debug for Resume<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resume")
            .field("conversation", &self.conversation)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("cancelled", &self.cancel.is_cancelled())
            .field("memory", &self.memory.map(|(_, id)| id))
            .finish()
    }
}
