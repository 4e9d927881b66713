//! One round: run the calls of a reply (in order, or several at a time), append one result per
//! call, record what can be rolled back, and decide whether the run goes on.

use tokio_util::sync::CancellationToken;

use crate::compensate::Held;

use crate::define::ToolError;
use crate::gate::CallResult;
use crate::model::{
    tool_call_keys, AssistantMessage, Message, ModelError, ToolCall, ToolResultMessage,
};
use crate::run::durable::WriteAhead;
use crate::run::execute::Executor;
use crate::run::observe::Observer as _;
use crate::run::outcome::RoundEnd;
use crate::run::result_limit::cut;
use crate::run::span::Gated;
use crate::run::tools::RunTools;
use crate::run::{ErrorAction, LoopStatus, ToolLoop};
use crate::store::{CallSummary, RecordEntry, RunState, StoreError};

impl ToolLoop {
    /// The executor of this loop's calls in one round: its observers around each call, its
    /// successes written ahead through `finished`.
    pub(crate) fn executor<'x>(
        &'x self,
        tools: &'x RunTools<'_>,
        cancel: &'x CancellationToken,
        finished: &'x WriteAhead<'x>,
    ) -> Executor<'x, RunTools<'x>> {
        Executor {
            tools,
            observers: Some(&self.observers),
            cancel: Some(cancel),
            finished: Some(finished),
            progress: None,
            capture_content: self.options.capture_tool_content,
            hand_off: self.records.store.is_some(),
        }
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
            self.records.store.as_deref(),
            &run_id,
            state.rounds,
            conversation.len() + 1,
        );
        let ended = self
            .executor(tools, cancel, &finished)
            .reply(
                &reply.tool_calls,
                &keys,
                resolutions,
                self.options.concurrency,
            )
            .await;
        let (finished, store_failure) = finished.into_parts();
        self.conclude(
            conversation,
            state,
            tools,
            reply,
            ended,
            (finished, store_failure),
            None,
            cancel,
        )
    }

    /// `content`, the answer to `call` of `tool` (`None` for a tool the registry does not
    /// hold), as the model reads it: cut when it is longer than the tool or the run allows, the
    /// whole of it then told to the observers.
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
        self.observers.result_cut(key, call, &content, kept);
        read
    }

    /// Appends the reply, records what can be rolled back, decides whether the run goes on, and
    /// writes one result per call, once: after the reply when the run goes on; when it stops
    /// here, at its end, once its rollback says what became of each call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn conclude(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        ended: Vec<CallResult>,
        (finished, store_failure): (Vec<(usize, RecordEntry, Held)>, Option<StoreError>),
        stream_error: Option<ModelError>,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        let keys = tool_call_keys(&reply);
        let round = state.rounds;
        // What the round's results say of the run, first: where they are written depends on it.
        let mut failure: Option<(String, String, ToolError)> = None;
        let mut all_direct = true;
        for ((call, key), ended) in reply.tool_calls.iter().zip(&keys).zip(&ended) {
            match ended.ran() {
                Some(Ok(_)) => {
                    all_direct &= tools
                        .get(&call.name)
                        .is_some_and(|tool| tool.definition().options.return_direct);
                }
                Some(Err(error)) => {
                    all_direct = false;
                    if failure.is_none()
                        && self.options.errors.action(error) == ErrorAction::RollBack
                    {
                        failure = Some((key.clone(), call.name.clone(), error.clone()));
                    }
                }
                _ => all_direct = false,
            }
        }
        let stop = if let Some(error) = store_failure {
            state.store_error.get_or_insert(Box::new(error));
            Some(LoopStatus::StoreFailed)
        } else if cancel.is_cancelled() {
            Some(LoopStatus::Cancelled)
        } else if let Some((key, name, error)) = failure {
            Some(LoopStatus::RolledBack { key, name, error })
        } else if all_direct {
            // The tools answered: what the stream failed to bring after them is not needed.
            None
        } else {
            stream_error.map(LoopStatus::ModelFailed)
        };

        // One result per call, in call order, right after the reply: in the conversation when
        // the run goes on; when it stops here, kept for its end, which writes them as the
        // rollback leaves them.
        let base = conversation.len() + 1;
        conversation.push(Message::Assistant(reply.clone()));
        let written = match stop {
            Some(_) => &mut state.unwritten,
            None => &mut *conversation,
        };
        for ((call, key), ended) in reply.tool_calls.iter().zip(&keys).zip(ended) {
            let started = ended.ran().is_some();
            let tool = tools.get(&call.name).map(|tool| &**tool);
            let (content, parts, status) = ended.into_answer(call, |error| {
                self.observers
                    .tool_error_message(call, error)
                    .unwrap_or_else(|| error.model_message())
            });
            let content = self.within_limit(tool, call, key, content);
            written.push(Message::Tool(ToolResultMessage {
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

        if let Some(status) = stop {
            return RoundEnd::Stop(status);
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
