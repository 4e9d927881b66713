//! A streamed round: each tool call starts as soon as it is complete in the stream, while the
//! rest of the reply is still arriving.

use std::collections::VecDeque;
use std::pin::pin;

use futures_util::future::{select, Either};
use futures_util::stream::{FuturesUnordered, StreamExt as _};
use tokio_util::sync::CancellationToken;

use crate::compensate::Held;

use crate::gate::{CallResult, Resolution};
use crate::model::{AssistantMessage, ChatDelta, ChatStream, ModelError};
use crate::run::durable::WriteAhead;
use crate::run::tools::RunTools;
use crate::run::{Concurrency, ToolLoop};
use crate::store::{RecordEntry, StoreError};

/// What a streamed reply gave, once the stream ended and the started calls finished.
pub(crate) struct Streamed {
    pub(crate) reply: AssistantMessage,
    pub(crate) ended: Vec<CallResult>,
    pub(crate) finished: (Vec<(usize, RecordEntry, Held)>, Option<StoreError>),
    pub(crate) error: Option<ModelError>,
}

impl ToolLoop {
    /// Reads `stream` to its end, starting each complete call at once (within the concurrency
    /// limit; `Sequential` runs them one at a time, still overlapping the stream). On
    /// cancellation the stream is dropped, queued calls never start, started ones finish.
    /// Compensable successes are recorded through `finished` as they happen.
    pub(crate) async fn consume_stream(
        &self,
        stream: ChatStream<'_>,
        tools: &RunTools<'_>,
        finished: WriteAhead<'_>,
        cancel: &CancellationToken,
    ) -> Streamed {
        let limit = match self.options.concurrency {
            Concurrency::Bounded(limit) if limit > 1 => limit,
            _ => 1,
        };
        let mut stream = Some(stream);
        let mut reply = AssistantMessage::default();
        let mut running = FuturesUnordered::new();
        let mut ended: Vec<Option<CallResult>> = Vec::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        let mut error = None;
        loop {
            if cancel.is_cancelled() {
                stream = None;
            }
            while running.len() < limit {
                let Some(position) = queue.pop_front() else {
                    break;
                };
                let call = reply.tool_calls[position].clone();
                // Provisional key: the reply's keys are known once it is complete.
                let key = call.id.clone().unwrap_or_else(|| format!("#{position}"));
                let run = self.run_one(
                    tools,
                    call,
                    key,
                    position,
                    Resolution::Run,
                    cancel,
                    &finished,
                );
                running.push(async move { (position, run.await) });
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
                Either::Left(Some(Err(failure))) => {
                    error = Some(failure);
                    stream = None;
                }
                Either::Left(None) => stream = None,
                Either::Right(Some((position, result))) => ended[position] = Some(result),
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
