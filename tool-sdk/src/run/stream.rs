//! A streamed round: each tool call starts as soon as it is complete in the stream, while the
//! rest of the reply is still arriving.

use std::collections::VecDeque;
use std::pin::pin;

use futures_util::future::{select, Either};
use futures_util::stream::{FuturesUnordered, StreamExt as _};
use tokio_util::sync::CancellationToken;

use crate::compensate::Held;

use crate::gate::CallResult;
use crate::model::{AssistantMessage, ChatDelta, ChatStream, ModelError, Usage};
use crate::run::durable::WriteAhead;
use crate::run::execute::Calls as _;
use crate::run::schedule::{Running, Schedule};
use crate::run::span::Gated;
use crate::run::tools::RunTools;
use crate::run::ToolLoop;
use crate::store::{RecordEntry, StoreError};

/// What a streamed reply gave, once the stream ended and the started calls finished.
pub(crate) struct Streamed {
    pub(crate) reply: AssistantMessage,
    pub(crate) ended: Vec<CallResult>,
    pub(crate) finished: (Vec<(usize, RecordEntry, Held)>, Option<StoreError>),
    pub(crate) error: Option<ModelError>,
    /// The tokens the stream reported, if it reported any.
    pub(crate) usage: Option<Usage>,
}

impl ToolLoop {
    /// Reads `stream` to its end, starting each complete call as soon as the run's
    /// [`Concurrency`](crate::run::Concurrency) admits it beside the calls running
    /// (`Sequential` runs them one at a time, still overlapping the stream). On
    /// cancellation the stream is dropped, queued calls never start, started ones finish.
    /// Compensable successes are recorded through `finished` as they happen.
    pub(crate) async fn consume_stream(
        &self,
        stream: ChatStream<'_>,
        tools: &RunTools<'_>,
        finished: WriteAhead<'_>,
        cancel: &CancellationToken,
    ) -> Streamed {
        let schedule = Schedule::of(self.options.concurrency);
        let executor = self.executor(tools, cancel, &finished);
        let mut stream = Some(stream);
        let mut reply = AssistantMessage::default();
        let mut running = FuturesUnordered::new();
        let mut ended: Vec<Option<CallResult>> = Vec::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        // Calls running that are not reads.
        let mut writes_running = 0_usize;
        let mut error = None;
        let mut usage: Option<Usage> = None;
        loop {
            if cancel.is_cancelled() {
                stream = None;
            }
            // Calls start in reply order, each when the schedule admits it beside what runs.
            while let Some(&position) = queue.front() {
                let read =
                    schedule.tells_reads() && tools.is_read(&reply.tool_calls[position].name);
                let now = Running {
                    calls: running.len(),
                    a_write: writes_running > 0,
                };
                if !schedule.admits(read, now) {
                    break;
                }
                queue.pop_front();
                if !read {
                    writes_running += 1;
                }
                let call = reply.tool_calls[position].clone();
                // Provisional key: the reply's keys are known once it is complete.
                let key = call.id.clone().unwrap_or_else(|| format!("#{position}"));
                let run = executor.call(call, key, position, Gated::UNASKED);
                running.push(async move { (position, read, run.await) });
            }
            let next = match (stream.as_mut(), running.is_empty()) {
                (None, true) => break,
                (None, false) => Either::Right(running.next().await),
                (Some(stream), true) => Either::Left(next_piece(stream, cancel).await),
                (Some(stream), false) => {
                    match select(pin!(next_piece(stream, cancel)), running.next()).await {
                        Either::Left((piece, _)) => Either::Left(piece),
                        Either::Right((done, _)) => Either::Right(done),
                    }
                }
            };
            match next {
                Either::Left(Some(Ok(ChatDelta::Text(text)))) => {
                    reply.text.get_or_insert_with(String::new).push_str(&text);
                }
                Either::Left(Some(Ok(ChatDelta::ToolCall(call)))) => {
                    queue.push_back(reply.tool_calls.len());
                    reply.tool_calls.push(call);
                    ended.push(None);
                }
                Either::Left(Some(Ok(ChatDelta::Usage(reported)))) => {
                    *usage.get_or_insert_with(Usage::default) += reported;
                }
                Either::Left(Some(Err(failure))) => {
                    error = Some(failure);
                    stream = None;
                }
                Either::Left(None) => stream = None,
                Either::Right(Some((position, read, result))) => {
                    if !read {
                        writes_running -= 1;
                    }
                    ended[position] = Some(result);
                }
                Either::Right(None) => {}
            }
        }
        drop(running);
        Streamed {
            reply,
            ended: ended
                .into_iter()
                .map(|e| e.unwrap_or(CallResult::NotStarted))
                .collect(),
            finished: finished.into_parts(),
            error,
            usage,
        }
    }
}

/// The next piece of the stream, or `None` when it ended or the run was cancelled.
async fn next_piece(
    stream: &mut ChatStream<'_>,
    cancel: &CancellationToken,
) -> Option<Result<ChatDelta, ModelError>> {
    match select(pin!(cancel.cancelled()), stream.next()).await {
        Either::Left(_) => None,
        Either::Right((piece, _)) => piece,
    }
}
