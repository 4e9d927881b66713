//! The one executor of decided calls, whoever decided them: the loop's rounds (whole or
//! streamed), the gate alone ([`Gate::execute`](crate::gate::Gate::execute),
//! [`Gate::resume`](crate::gate::Gate::resume)), an MCP server's calls and the approval page's
//! resumes all run a call here, and nowhere else.
//!
//! A call enters once: its span opens (every call has one, whatever the gate made of it); its
//! resolution says whether it runs; an allowed one is reported to the observers, run with its
//! context (cancellation, call id, progress), reported again with its result, and its success
//! written ahead when it can be rolled back.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::{self, StreamExt as _};
use tokio_util::sync::CancellationToken;

use crate::define::{ProgressSink, Tool, ToolContext, ToolError, ToolResult};
use crate::describe::search::EmbedError;
use crate::gate::{CallResult, EditedRun, Resolution};
use crate::model::ToolCall;
use crate::register::{CallFuture, ToolRegistry};
use crate::run::durable::WriteAhead;
use crate::run::observe::Observer as _;
use crate::run::observers::Observers;
use crate::run::span::{CallSpan, Gated};
use crate::run::Concurrency;

/// A call answered by its caller, not a tool: its result, and why a search fell back to BM25
/// when it did.
pub(crate) type Answer<'c> =
    Pin<Box<dyn Future<Output = (ToolResult, Option<EmbedError>)> + Send + 'c>>;

/// Where an executor finds and calls tools: a run's tools, or a registry alone.
pub(crate) trait Calls {
    /// The tool named `name`.
    fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>>;

    /// The answer to `call` when the caller gives it itself, without a tool: a run's search,
    /// or a deferred tool no search found.
    fn answered_here<'c>(&'c self, call: &'c ToolCall) -> Option<Answer<'c>>;

    /// Starts a call of `name`.
    fn start<'c>(
        &'c self,
        name: &str,
        arguments: &'c str,
        context: ToolContext<'c>,
    ) -> CallFuture<'c>;

    /// Whether a call of `name` only reads.
    fn is_read(&self, name: &str) -> bool {
        self.tool(name)
            .is_some_and(|tool| tool.definition().options.read_only)
    }
}

impl Calls for ToolRegistry {
    fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.get(name)
    }

    fn answered_here<'c>(&'c self, _call: &'c ToolCall) -> Option<Answer<'c>> {
        None
    }

    fn start<'c>(
        &'c self,
        name: &str,
        arguments: &'c str,
        context: ToolContext<'c>,
    ) -> CallFuture<'c> {
        self.call_with(name, arguments, context)
    }
}

/// Runs decided calls over `tools`.
pub(crate) struct Executor<'x, T: ?Sized> {
    pub(crate) tools: &'x T,
    /// Who watches; `None` for the gate alone, which has no observers.
    pub(crate) observers: Option<&'x Arc<Observers>>,
    /// Once cancelled, no call starts; what started finishes.
    pub(crate) cancel: Option<&'x CancellationToken>,
    /// Where compensable successes are written ahead, in a loop.
    pub(crate) finished: Option<&'x WriteAhead<'x>>,
    /// Where progress goes when no observer takes it (an MCP server forwards it).
    pub(crate) progress: Option<&'x Arc<dyn ProgressSink>>,
    /// Whether each call's arguments and result go on its span
    /// ([`LoopOptions::capture_tool_content`](crate::run::LoopOptions::capture_tool_content)).
    pub(crate) capture_content: bool,
    /// Whether a synchronous tool runs with the worker's queue handed to another thread (in a
    /// durable loop, so that its lease is renewed while the tool holds the thread).
    pub(crate) hand_off: bool,
}

impl<'x, T: Calls + ?Sized> Executor<'x, T> {
    /// An executor over `tools` with nothing around the calls: no observer, no cancellation,
    /// no record.
    pub(crate) fn plain(tools: &'x T) -> Self {
        Self {
            tools,
            observers: None,
            cancel: None,
            finished: None,
            progress: None,
            capture_content: false,
            hand_off: false,
        }
    }

    /// Runs one call as the gate resolved it (`gated`), inside its span, which every call has,
    /// whatever the gate made of it.
    ///
    /// Not an `async fn`, and the call's future is wrapped only in its span, which keeps none
    /// of it: an `async` wrapper would hold the call's arguments again, in every call's future
    /// of every round.
    pub(crate) fn call(
        &self,
        call: ToolCall,
        key: String,
        position: usize,
        gated: Gated,
    ) -> impl Future<Output = CallResult> + '_ {
        use futures_util::future::{ready, Either, FutureExt as _};
        // The tool is looked up for its description only when a subscriber wants the span.
        let description = || {
            self.tools
                .tool(&call.name)
                .map(|tool| tool.definition().description.as_str())
        };
        let span = CallSpan::open(&call, description, &gated, self.capture_content);
        // The call that runs: the model's, or the one a person corrected, whose record then
        // holds what ran. One future either way: a run's every call holds it.
        let (call, edited) = match gated.resolution {
            Resolution::Run => (call, None),
            Resolution::RunEdited(arguments) => (
                ToolCall {
                    arguments: arguments.clone(),
                    ..call
                },
                Some(arguments),
            ),
            Resolution::Denied(message) => {
                return span.around(Either::Right(ready(CallResult::Denied(message))))
            }
            Resolution::NotOffered => {
                return span.around(Either::Right(ready(CallResult::NotOffered)))
            }
        };
        span.around(Either::Left(self.allowed(call, key, position).map(
            move |started| match (started, edited) {
                (Some(result), None) => CallResult::Ran(result),
                (Some(result), Some(arguments)) => {
                    CallResult::RanEdited(Box::new(EditedRun { arguments, result }))
                }
                (None, _) => CallResult::NotStarted,
            },
        )))
    }

    /// Runs one allowed call (`gated` says how it was let through), alone, and gives its tool's
    /// result: for a server that answers each call by itself. A call whose cancellation came
    /// before it started fails with that reason, and never starts.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) async fn one(&self, call: ToolCall, key: String, gated: Gated) -> ToolResult {
        let tool = call.name.clone();
        match self.call(call, key, 0, gated).await {
            CallResult::Ran(result) => result,
            CallResult::RanEdited(edited) => edited.result,
            _ => Err(ToolError::failed(
                tool,
                "the request was cancelled before the call started",
            )),
        }
    }

    /// Runs the calls of a reply as resolved, `concurrency` saying which run together; the
    /// results in reply order.
    pub(crate) async fn reply(
        &self,
        calls: &[ToolCall],
        keys: &[String],
        resolutions: Vec<Gated>,
        concurrency: Concurrency,
    ) -> Vec<CallResult> {
        let run = |(position, gated): (usize, Gated)| {
            self.call(
                calls[position].clone(),
                keys[position].clone(),
                position,
                gated,
            )
        };
        let work = resolutions.into_iter().enumerate();
        match concurrency {
            Concurrency::Bounded(limit) if limit > 1 => {
                stream::iter(work.map(run)).buffered(limit).collect().await
            }
            Concurrency::ReadsTogether(limit) if limit > 1 => {
                // Each run of reads together; each other call alone, in reply order.
                let is_read = |position: usize| self.tools.is_read(&calls[position].name);
                let mut ended = Vec::with_capacity(calls.len());
                let mut work = work.peekable();
                while let Some(item) = work.next() {
                    if !is_read(item.0) {
                        ended.push(run(item).await);
                        continue;
                    }
                    let mut reads = vec![item];
                    while let Some(next) = work.next_if(|(position, _)| is_read(*position)) {
                        reads.push(next);
                    }
                    let done: Vec<CallResult> = stream::iter(reads.into_iter().map(run))
                        .buffered(limit)
                        .collect()
                        .await;
                    ended.extend(done);
                }
                ended
            }
            _ => {
                let mut ended = Vec::with_capacity(calls.len());
                for item in work {
                    ended.push(run(item).await);
                }
                ended
            }
        }
    }

    /// Runs an allowed call: reported around it, its success written ahead when it can be
    /// rolled back. `None` when the run was cancelled before it started: nothing starts then,
    /// and what started finishes.
    async fn allowed(&self, call: ToolCall, key: String, position: usize) -> Option<ToolResult> {
        if self.cancel.is_some_and(CancellationToken::is_cancelled) {
            return None;
        }
        if let Some(observers) = self.observers {
            observers.call_started(&key, &call);
        }
        let mut context = ToolContext::new();
        if let Some(cancel) = self.cancel {
            context = context.with_cancellation(cancel);
        }
        if let Some(id) = &call.id {
            context = context.with_call_id(id);
        }
        // Progress goes to the observers; with none, tools report to nowhere at no cost.
        let progress = self
            .observers
            .and_then(|observers| observers.progress_sink(&key));
        if let Some(sink) = progress.as_ref().or(self.progress) {
            context = context.with_progress(sink);
        }
        let result = match self.tools.answered_here(&call) {
            Some(answer) => {
                let (result, fell_back) = answer.await;
                if let (Some(error), Some(observers)) = (&fell_back, self.observers) {
                    observers.search_fell_back(&key, error);
                }
                result
            }
            None => self.start(&call, context).await,
        };
        if let Some(observers) = self.observers {
            observers.call_finished(&key, &call, &result);
        }
        if let (Ok(output), Some(finished)) = (&result, self.finished) {
            let compensable = self
                .tools
                .tool(&call.name)
                .is_some_and(|tool| tool.definition().options.compensable);
            if compensable {
                finished.push(position, key, call, output).await;
            }
        }
        Some(result)
    }

    /// Starts a call: a synchronous tool runs to its end here, with this worker's queue handed
    /// to another thread first when the executor hands off, so that what waits on the worker
    /// (the lease heartbeat above all) goes on while the tool holds the thread.
    fn start<'c>(&'c self, call: &'c ToolCall, context: ToolContext<'c>) -> CallFuture<'c> {
        // The runtime is asked only when handing off: the others pay nothing per call.
        let hand_off = self.hand_off
            && tokio::runtime::Handle::try_current().is_ok_and(|runtime| {
                runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
            });
        let mut future = self.tools.start(&call.name, &call.arguments, context);
        if hand_off {
            // A synchronous tool runs as its call starts: there, off the worker's queue.
            tokio::task::block_in_place(|| future.start());
        }
        future
    }
}
