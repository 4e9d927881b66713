//! One round: run the calls of a reply (in order, or several at a time), append one result per
//! call, record what can be rolled back, and decide whether the run goes on.

use futures_util::stream::{self, StreamExt as _};
use tokio_util::sync::CancellationToken;

use crate::compensate::Held;

use crate::define::{ToolContext, ToolError, ToolOutput};
use crate::gate::CallResult;
use crate::model::{
    tool_call_keys, AssistantMessage, Message, ToolCall, ToolResultMessage, ToolResultStatus,
};
use crate::run::durable::WriteAhead;
use crate::run::outcome::RoundEnd;
use crate::run::progress::LoopProgress;
use crate::run::result_limit::cut;
use crate::run::span::{CallSpan, Gated};
use crate::run::tools::RunTools;
use crate::run::{Concurrency, ErrorAction, LoopEvent, LoopStatus, ToolLoop};
use crate::store::{CallSummary, RecordEntry, RunState, StoreError};

impl ToolLoop {
    /// Runs one call of a reply, unless it was denied, not offered, or the run is cancelled,
    /// inside its span (`span.rs`), which every call has, whatever the gate made of it.
    /// Successes of compensable tools go to `finished` as they happen, before this returns.
    ///
    /// Not an `async fn`, and the call's future is wrapped only in its span, which keeps none
    /// of it: an `async` wrapper would hold the call's arguments again, in every call's future
    /// of every round.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_one<'s>(
        &'s self,
        tools: &'s RunTools<'_>,
        call: ToolCall,
        key: String,
        position: usize,
        gated: Gated,
        cancel: &'s CancellationToken,
        finished: &'s WriteAhead<'_>,
    ) -> impl std::future::Future<Output = CallResult> + 's {
        let span = CallSpan::open(tools, &call, &gated, self.options.capture_tool_content);
        span.around(
            gated
                .resolution
                .run(self.call_started(tools, call, key, position, cancel, finished)),
        )
    }

    /// Runs an allowed call: hooks and events around it, its success recorded when it can be
    /// rolled back. `None` when the run was cancelled before it started: nothing starts then,
    /// and what started finishes.
    async fn call_started(
        &self,
        tools: &RunTools<'_>,
        call: ToolCall,
        key: String,
        position: usize,
        cancel: &CancellationToken,
        finished: &WriteAhead<'_>,
    ) -> Option<crate::define::ToolResult> {
        if cancel.is_cancelled() {
            return None;
        }
        if let Some(before) = &self.before {
            before(&call);
        }
        if let Some(terminal) = &self.terminal {
            terminal.call_started(&call);
        }
        self.emit(&LoopEvent::ToolStarted {
            key: key.clone(),
            name: call.name.clone(),
        });
        let mut context = ToolContext::new().with_cancellation(cancel);
        if let Some(id) = &call.id {
            context = context.with_call_id(id);
        }
        // Progress goes to a listener; with none, tools report to nowhere at no cost.
        let progress = self
            .listener
            .as_ref()
            .map(|listener| LoopProgress::sink(listener, &key));
        if let Some(sink) = &progress {
            context = context.with_progress(sink);
        }
        let result = if tools.is_search(&call.name) {
            tools.run_search(&call.arguments)
        } else if tools.is_hidden(&call.name) {
            // Deferred and never found: unknown to the model, which is pointed at the search.
            Err(ToolError::unknown_tool(
                call.name.clone(),
                vec![crate::describe::search::SEARCH_TOOL_NAME.to_owned()],
            ))
        } else {
            self.start_call(tools, &call, context).await
        };
        if let Some(after) = &self.after {
            after(&call, &result);
        }
        if let Some(terminal) = &self.terminal {
            terminal.call_ended(&result, |error| self.options.errors.action(error.kind()));
        }
        if self.listens() {
            self.emit(&LoopEvent::ToolFinished {
                key: key.clone(),
                name: call.name.clone(),
                status: if result.is_ok() {
                    ToolResultStatus::Success
                } else {
                    ToolResultStatus::Error
                },
                // Parsed only for a listener: a run nobody watches pays nothing.
                structured: result.as_ref().ok().and_then(ToolOutput::structured),
            });
        }
        if let Ok(output) = &result {
            let compensable = tools
                .get(&call.name)
                .is_some_and(|tool| tool.definition().options.compensable);
            if compensable {
                finished.push(position, key, call, output).await;
            }
        }
        Some(result)
    }

    /// Starts a call: a synchronous tool runs to its end here. With a store, on a
    /// multi-threaded runtime, it runs with this worker's queue handed to another thread
    /// first, so that what waits on the worker — the lease heartbeat above all — goes on while
    /// the tool holds the thread.
    fn start_call<'c>(
        &self,
        tools: &'c RunTools<'_>,
        call: &'c ToolCall,
        context: ToolContext<'c>,
    ) -> crate::register::CallFuture<'c> {
        // The runtime is asked only in a durable loop: the others pay nothing per call.
        let hand_off = self.store.is_some()
            && tokio::runtime::Handle::try_current().is_ok_and(|runtime| {
                runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
            });
        let mut future = tools.call(&call.name, &call.arguments, context);
        if hand_off {
            // A synchronous tool runs as its call starts: there, off the worker's queue.
            tokio::task::block_in_place(|| future.start());
        }
        future
    }

    pub(crate) async fn round(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        resolutions: Vec<Gated>,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        let keys = tool_call_keys(&reply);
        let run_id = state.id.clone();
        let finished = WriteAhead::new(
            self.store.as_deref(),
            &run_id,
            state.rounds,
            conversation.len() + 1,
        );
        let run = |(position, gated): (usize, Gated)| {
            let call = reply.tool_calls[position].clone();
            let key = keys[position].clone();
            self.run_one(tools, call, key, position, gated, cancel, &finished)
        };
        let work = resolutions.into_iter().enumerate();
        let ended: Vec<CallResult> = match self.options.concurrency {
            Concurrency::Bounded(limit) if limit > 1 => {
                stream::iter(work.map(run)).buffered(limit).collect().await
            }
            Concurrency::ReadsTogether(limit) if limit > 1 => {
                // Each run of reads together; each other call alone, in reply order.
                let is_read = |position: usize| tools.is_read(&reply.tool_calls[position].name);
                let mut ended = Vec::with_capacity(reply.tool_calls.len());
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
                let mut ended = Vec::with_capacity(reply.tool_calls.len());
                for item in work {
                    ended.push(run(item).await);
                }
                ended
            }
        };
        let (finished, store_failure) = finished.into_parts();
        self.conclude(
            conversation,
            state,
            tools,
            reply,
            ended,
            (finished, store_failure),
            cancel,
        )
    }

    /// `content`, the answer to `call` of `tool` (`None` for a tool the registry does not
    /// hold), as the model reads it: cut when it is longer than the tool or the run allows, the
    /// whole of it then told to the listener.
    fn within_limit(
        &self,
        tool: Option<&dyn crate::define::Tool>,
        call: &ToolCall,
        key: &str,
        content: String,
    ) -> String {
        let limit = tool
            .and_then(|tool| tool.definition().options.result_limit)
            .or(self.options.result_limit);
        let Some((read, kept)) = limit.and_then(|limit| cut(&content, limit)) else {
            return content;
        };
        tracing::info!(
            tool = %call.name,
            key,
            bytes = content.len(),
            kept,
            "a result longer than its limit was cut for the model"
        );
        self.emit(&LoopEvent::ResultCut {
            key: key.to_owned(),
            name: call.name.clone(),
            full: content,
            kept,
        });
        read
    }

    /// Appends the reply and one result per call, records what can be rolled back, and decides
    /// whether the run goes on.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn conclude(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        ended: Vec<CallResult>,
        (finished, store_failure): (Vec<(usize, RecordEntry, Held)>, Option<StoreError>),
        cancel: &CancellationToken,
    ) -> RoundEnd {
        let keys = tool_call_keys(&reply);
        let round = state.rounds;
        // One result per call, in call order, right after the reply.
        let base = conversation.len() + 1;
        conversation.push(Message::Assistant(reply.clone()));
        let mut failure: Option<(String, String, ToolError)> = None;
        let mut all_direct = true;
        for ((call, key), ended) in reply.tool_calls.iter().zip(&keys).zip(ended) {
            let started = matches!(ended, CallResult::Ran(_));
            // Looked up once: for a return-direct answer, and for the result's limit.
            let tool = tools.get(&call.name).map(|tool| &**tool);
            match &ended {
                CallResult::Ran(Ok(_)) => {
                    all_direct &= tool.is_some_and(|tool| tool.definition().options.return_direct);
                }
                CallResult::Ran(Err(error)) => {
                    all_direct = false;
                    if failure.is_none()
                        && self.options.errors.action(error.kind()) == ErrorAction::RollBack
                    {
                        failure = Some((key.clone(), call.name.clone(), error.clone()));
                    }
                }
                _ => all_direct = false,
            }
            let (content, parts, status) =
                ended.into_answer(call, |error| match &self.error_handler {
                    Some(handler) => handler(call, error),
                    None => error.model_message(),
                });
            let content = self.within_limit(tool, call, key, content);
            conversation.push(Message::Tool(ToolResultMessage {
                call_id: call.id.clone(),
                key: key.clone(),
                name: call.name.clone(),
                content,
                parts,
                status,
            }));
            state.calls.push(CallSummary {
                round,
                key: key.clone(),
                call: call.clone(),
                started,
                status,
            });
        }

        // Record what can be rolled back, in the order it finished.
        for (position, mut entry, held) in finished {
            // A streamed call was recorded under its provisional key; reports use the reply's
            // (the idempotency key stays as written ahead).
            if let Some(key) = keys.get(position) {
                entry.key.clone_from(key);
            }
            if held == Held::LocalOnly {
                state.local_only.insert(entry.idempotency_key.clone());
            }
            state.record.push(entry);
        }

        if let Some(error) = store_failure {
            state.store_error.get_or_insert(Box::new(error));
            return RoundEnd::Stop(LoopStatus::StoreFailed);
        }
        if cancel.is_cancelled() {
            return RoundEnd::Stop(LoopStatus::Cancelled);
        }
        if let Some((key, name, error)) = failure {
            return RoundEnd::Stop(LoopStatus::RolledBack { key, name, error });
        }
        if all_direct {
            let results = conversation[base..]
                .iter()
                .filter_map(|m| match m {
                    Message::Tool(result) => Some(result.clone()),
                    _ => None,
                })
                .collect();
            return RoundEnd::Stop(LoopStatus::ReturnedDirect(results));
        }
        RoundEnd::Continue
    }
}
