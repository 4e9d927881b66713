//! The rounds of a run: each offers the tools, asks the model, and takes its reply one way,
//! whether it came streamed (its calls already started as they arrived) or whole (its calls
//! then paused for decisions, or run).

use std::pin::pin;

use futures_util::future::{select, Either};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::compensate::Held;
use crate::gate::{CallResult, Resolution};
use crate::model::{AssistantMessage, ChatRequest, Message, ModelError, OfferedTool};
use crate::run::durable::WriteAhead;
use crate::run::outcome::RoundEnd;
use crate::run::tools::RunTools;
use crate::run::{LoopEvent, LoopStatus, ToolLoop};
use crate::store::{PausedTurn, RecordEntry, RunState, RunStore as _, StoreError};

/// What a model call gave: the reply, the calls a stream started as they arrived (with what
/// they recorded), and a stream's error after part of the reply.
struct Received {
    reply: AssistantMessage,
    ran: Option<Ran>,
    error: Option<ModelError>,
}

type Ran = (
    Vec<CallResult>,
    (Vec<(usize, RecordEntry, Held)>, Option<StoreError>),
);

impl ToolLoop {
    pub(super) async fn rounds(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &mut RunTools<'_>,
        cancel: &CancellationToken,
    ) -> LoopStatus {
        loop {
            if cancel.is_cancelled() {
                return LoopStatus::Cancelled;
            }
            if state.rounds >= self.options.max_rounds {
                return LoopStatus::MaxRoundsReached;
            }
            self.refresh(tools).await;
            // Every tool must be describable in the model's dialect before it is offered; a
            // tool that is not stops the run here, before the provider refuses the request.
            let dialect = self.model.dialect();
            if let Err(error) = tools.check_dialect(dialect, &self.schemas) {
                return LoopStatus::DescribeFailed(error);
            }
            let lowered;
            let offered: Vec<OfferedTool<'_>> = if dialect.takes_canonical() {
                tools.offered_canonical()
            } else {
                lowered = match tools.offered_lowered(dialect, &self.schemas) {
                    Ok(lowered) => lowered,
                    Err(error) => return LoopStatus::DescribeFailed(error),
                };
                lowered
                    .iter()
                    .map(|(definition, lowered)| OfferedTool {
                        definition,
                        parameters: lowered.schema(definition),
                    })
                    .collect()
            };
            state.rounds += 1;
            self.emit(&LoopEvent::ModelCalled {
                round: state.rounds,
            });
            let request = ChatRequest {
                messages: conversation,
                tools: &offered,
                options: &self.options.chat,
            };
            let received = match self.receive(request, state, tools, cancel).await {
                Ok(received) => received,
                Err(status) => return status,
            };
            let Received { reply, ran, error } = received;
            if let Some(terminal) = &self.terminal {
                terminal.replied(&reply);
            }
            if reply.tool_calls.is_empty() {
                if let Some(error) = error {
                    return LoopStatus::ModelFailed(error);
                }
                if cancel.is_cancelled() {
                    return LoopStatus::Cancelled;
                }
                conversation.push(Message::Assistant(reply.clone()));
                return LoopStatus::Answered(reply);
            }
            let end = match ran {
                Some((ended, finished)) => {
                    self.conclude(conversation, state, tools, reply, ended, finished, cancel)
                }
                None => {
                    let awaiting = self.awaiting(tools, &reply);
                    if !awaiting.is_empty() {
                        return self.pause(state, tools, reply, awaiting).await;
                    }
                    // Every tool of the run was offered; a name that is none of them gets
                    // "unknown tool" with suggestions from the registry.
                    let resolutions = vec![Resolution::Run; reply.tool_calls.len()];
                    self.round(conversation, state, tools, reply, resolutions, cancel)
                        .await
                }
            };
            match (end, error) {
                (RoundEnd::Stop(status), _) => return status,
                (RoundEnd::Continue, Some(error)) => return LoopStatus::ModelFailed(error),
                (RoundEnd::Continue, None) => {}
            }
        }
    }

    /// Asks the model. Streamed when it can stream and no call might need a decision (no call
    /// of a reply may run before all are known then): each call starts as soon as it is
    /// complete. Whole otherwise. A cancelled wait for a whole reply stops the run.
    async fn receive(
        &self,
        request: ChatRequest<'_>,
        state: &RunState,
        tools: &RunTools<'_>,
        cancel: &CancellationToken,
    ) -> Result<Received, LoopStatus> {
        let span = tracing::info_span!(
            "gen_ai.chat",
            gen_ai.operation.name = "chat",
            round = state.rounds
        );
        let streaming = self.options.streaming && !self.may_pause(tools);
        if let Some(stream) = streaming.then(|| self.model.chat_stream(request)).flatten() {
            let finished = WriteAhead::new(
                self.store.as_deref(),
                &state.id,
                state.rounds,
                request.messages.len() + 1,
            );
            let streamed = self
                .consume_stream(stream, tools, finished, cancel)
                .instrument(span)
                .await;
            return Ok(Received {
                reply: streamed.reply,
                ran: Some((streamed.ended, streamed.finished)),
                error: streamed.error,
            });
        }
        let call = self.model.chat(request).instrument(span);
        match select(pin!(cancel.cancelled()), call).await {
            Either::Left(((), _)) => Err(LoopStatus::Cancelled),
            Either::Right((Ok(response), _)) => Ok(Received {
                reply: response.message,
                ran: None,
                error: None,
            }),
            Either::Right((Err(error), _)) => Err(LoopStatus::ModelFailed(error)),
        }
    }

    /// Pauses the run on `reply`, kept where a resume takes it: the run's store, or, without
    /// one, the loop's own.
    async fn pause(
        &self,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        awaiting: Vec<String>,
    ) -> LoopStatus {
        self.emit(&LoopEvent::Paused {
            awaiting: awaiting.clone(),
        });
        let mut kept_state = state.clone();
        kept_state.found = tools.found_names();
        let paused = PausedTurn::of_run(reply, tools.names(), awaiting, kept_state);
        let kept = match &self.store {
            Some(store) => store.pause(paused.id(), &paused).await,
            // Without a store, the run is begun in the loop's own, only to pause.
            None => match self.parked.begin(paused.id(), self.lease).await {
                Ok(()) => self.parked.pause(paused.id(), &paused).await,
                Err(error) => Err(error),
            },
        };
        if let Err(error) = kept {
            state.store_error.get_or_insert(error);
            return LoopStatus::StoreFailed;
        }
        LoopStatus::Paused(Box::new(paused))
    }

    /// Whether any call could need a decision: the gate's policy names something, or a tool
    /// declares confirmation.
    fn may_pause(&self, tools: &RunTools<'_>) -> bool {
        !self.gate.policy().is_empty()
            || tools
                .all_definitions()
                .iter()
                .any(|d| d.options.confirm != crate::define::Confirm::Never)
    }

    /// Keys of calls needing a decision, looking each tool up among all the run's tools.
    fn awaiting(&self, tools: &RunTools<'_>, reply: &AssistantMessage) -> Vec<String> {
        self.gate
            .awaiting_among(reply, |name| tools.get(name).map(|tool| &**tool))
    }
}
