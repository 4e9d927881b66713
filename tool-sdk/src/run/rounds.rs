//! The rounds of a run: each offers the tools, asks the model, and takes its reply one way,
//! whether it came streamed (its calls already started as they arrived) or whole (its calls
//! then paused for decisions, or run).

use std::pin::pin;

use futures_util::future::{select, Either};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::gate::CallResult;
use crate::model::{AssistantMessage, ChatRequest, Message, ModelError, OfferedTool, Usage};
use crate::run::durable::WriteAhead;
use crate::run::observe::Observer as _;
use crate::run::outcome::RoundEnd;
use crate::run::span::Gated;
use crate::run::stream::Streamed;
use crate::run::tools::RunTools;
use crate::run::traced::Traced;
use crate::run::{BudgetLimit, LoopStatus, ToolLoop};
use crate::store::{PausedTurn, RunState, RunStore as _};

/// What a model call gave: a reply that streamed in (its calls started as they arrived, with
/// what they recorded, and the stream's error after part of the reply), or a whole reply.
enum Received {
    Streamed(Streamed),
    Whole(AssistantMessage, Option<Usage>),
}

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
            if let Some(limit) =
                self.options
                    .budget
                    .before_request(&state.usage, state.started, &state.budget.since)
            {
                return self.exhausted(state, tools, limit).await;
            }
            self.callees.refresh(tools, &self.observers).await;
            let received = match self.ask(conversation, state, tools, cancel).await {
                Ok(received) => received,
                Err(status) => return status,
            };
            // Each kind of reply ends its round its own way. A streamed one is used up here,
            // before anything waits; what is left of a whole one is its reply alone: the run's
            // future holds neither the lowered tools nor what was received while the calls run.
            let reply = match received {
                Received::Streamed(mut streamed) => {
                    self.used(state, streamed.usage.take());
                    match self.ended_streamed(conversation, state, tools, streamed, cancel) {
                        RoundEnd::Continue => continue,
                        RoundEnd::Stop(status) => return status,
                    }
                }
                Received::Whole(reply, usage) => {
                    self.used(state, usage);
                    reply
                }
            };
            self.observers.replied(&reply);
            if reply.tool_calls.is_empty() {
                return self.answered(conversation, reply, None, cancel);
            }
            if let Some(limit) = self.options.budget.before_calls(
                state.calls.len(),
                reply.tool_calls.len(),
                state.started,
                &state.budget.since,
            ) {
                return match self.exhausted_by_calls(state, tools, reply, limit).await {
                    Ok(paused) => paused,
                    Err((reply, limit)) => {
                        self.refused_over_budget(conversation, state, tools, reply, limit, cancel)
                    }
                };
            }
            let awaiting = self.deciding.awaiting(tools, &reply);
            if !awaiting.is_empty() {
                return self.pause(state, tools, reply, awaiting).await;
            }
            // Every tool of the run was offered; a name that is none of them gets "unknown
            // tool" with suggestions from the registry.
            let resolutions = vec![Gated::UNASKED; reply.tool_calls.len()];
            if let RoundEnd::Stop(status) = self
                .round(conversation, state, tools, reply, resolutions, cancel)
                .await
            {
                return status;
            }
        }
    }

    /// Adds what the model reported for the round's request to the run's usage.
    fn used(&self, state: &mut RunState, usage: Option<Usage>) {
        if let Some(usage) = usage {
            state.usage += usage;
            self.observers.model_used(state.rounds, &usage);
        }
    }

    /// The run stops: `limit` of its budget is reached.
    pub(super) fn over_budget(&self, limit: BudgetLimit) -> LoopStatus {
        self.observers.budget_exhausted(&limit);
        LoopStatus::BudgetExhausted(limit)
    }

    /// A reply the budget has no room for: none of its calls runs, each is answered that it
    /// did not, so that the conversation stays valid, and the run stops.
    fn refused_over_budget(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        limit: BudgetLimit,
        cancel: &CancellationToken,
    ) -> LoopStatus {
        let ended = vec![CallResult::OverBudget; reply.tool_calls.len()];
        // Nothing ran: the round cannot fail, and it ends the run whatever it says.
        let _ = self.conclude(
            conversation,
            state,
            tools,
            reply,
            ended,
            (Vec::new(), None),
            None,
            cancel,
        );
        self.over_budget(limit)
    }

    /// Offers the tools, lowered to the model's dialect, and asks the model: one round's
    /// request, counted.
    async fn ask(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &mut RunTools<'_>,
        cancel: &CancellationToken,
    ) -> Result<Received, LoopStatus> {
        // Every tool must be describable in the model's dialect before it is offered; a tool
        // that is not stops the run here, before the provider refuses the request.
        let dialect = self.callees.model.dialect();
        tools
            .check_dialect(dialect, &self.callees.schemas)
            .map_err(LoopStatus::DescribeFailed)?;
        let lowered;
        let offered: Vec<OfferedTool<'_>> = if dialect.takes_canonical() {
            tools.offered_canonical()
        } else {
            lowered = tools
                .offered_lowered(dialect, &self.callees.schemas)
                .map_err(LoopStatus::DescribeFailed)?;
            lowered
                .iter()
                .map(|(definition, lowered)| OfferedTool {
                    definition,
                    parameters: lowered.schema(definition),
                })
                .collect()
        };
        state.rounds += 1;
        self.observers.model_called(state.rounds);
        let request = ChatRequest {
            messages: conversation,
            tools: &offered,
            options: &self.options.chat,
        };
        self.receive(request, state, tools, cancel).await
    }

    /// A streamed reply's round, its calls run already: the answer, or the round concluded
    /// (the stream's error stops the run once what it started is recorded).
    fn ended_streamed(
        &self,
        conversation: &mut Vec<Message>,
        state: &mut RunState,
        tools: &RunTools<'_>,
        streamed: Streamed,
        cancel: &CancellationToken,
    ) -> RoundEnd {
        self.observers.replied(&streamed.reply);
        if streamed.reply.tool_calls.is_empty() {
            return RoundEnd::Stop(self.answered(
                conversation,
                streamed.reply,
                streamed.error,
                cancel,
            ));
        }
        self.conclude(
            conversation,
            state,
            tools,
            streamed.reply,
            streamed.ended,
            streamed.finished,
            streamed.error,
            cancel,
        )
    }

    /// A reply without calls: the answer, unless the stream failed or the run was cancelled.
    fn answered(
        &self,
        conversation: &mut Vec<Message>,
        reply: AssistantMessage,
        error: Option<ModelError>,
        cancel: &CancellationToken,
    ) -> LoopStatus {
        if let Some(error) = error {
            return LoopStatus::ModelFailed(error);
        }
        if cancel.is_cancelled() {
            return LoopStatus::Cancelled;
        }
        conversation.push(Message::Assistant(reply.clone()));
        LoopStatus::Answered(reply)
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
        let span = Traced::chat_span(state.rounds);
        // Nor when a budget holds each reply whole: its calls are counted, or held for a
        // person, before any starts.
        let streaming = self.options.streaming
            && !self.deciding.may_pause(tools)
            && !self.options.budget.holds_replies();
        if let Some(stream) = streaming
            .then(|| self.callees.model.chat_stream(request))
            .flatten()
        {
            let finished = WriteAhead::new(
                self.records.store.as_deref(),
                &state.id,
                state.rounds,
                request.messages.len() + 1,
            );
            let streamed = self
                .consume_stream(stream, tools, finished, cancel)
                .instrument(span)
                .await;
            return Ok(Received::Streamed(streamed));
        }
        let call = self.callees.model.chat(request).instrument(span);
        match select(pin!(cancel.cancelled()), call).await {
            Either::Left(((), _)) => Err(LoopStatus::Cancelled),
            Either::Right((Ok(response), _)) => {
                Ok(Received::Whole(response.message, response.usage))
            }
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
        self.pause_offering(state, tools, reply, tools.names(), awaiting)
            .await
    }

    /// Pauses the run on `reply`, whose calls may be of the tools `offered` alone.
    pub(super) async fn pause_offering(
        &self,
        state: &mut RunState,
        tools: &RunTools<'_>,
        reply: AssistantMessage,
        offered: Vec<String>,
        awaiting: Vec<String>,
    ) -> LoopStatus {
        let mut kept_state = state.clone();
        kept_state.found = tools.found_names();
        let paused = PausedTurn::of_run(reply, offered, awaiting, kept_state)
            .with_deadline_in(self.deciding.gate.policy().deadline());
        let kept = match &self.records.store {
            Some(store) => store.pause(paused.id(), &paused).await,
            // Without a store, the run is begun in the loop's own, only to pause.
            None => match self
                .records
                .parked
                .begin(paused.id(), self.records.lease)
                .await
            {
                Ok(()) => self.records.parked.pause(paused.id(), &paused).await,
                Err(error) => Err(error),
            },
        };
        if let Err(error) = kept {
            state.store_error.get_or_insert(Box::new(error));
            return LoopStatus::StoreFailed;
        }
        self.observers.paused(&paused);
        LoopStatus::Paused(Box::new(paused))
    }
}
