//! A run from its start, or from a pause, to its end: begun or taken under its lease, driven
//! round after round, and, with an approver, decided and resumed at each pause.

use tokio_util::sync::CancellationToken;

use crate::gate::{GateError, ToolCallDecisions};
use crate::model::Message;
use crate::run::extend::Resumed;
use crate::run::history;
use crate::run::outcome::RoundEnd;
use crate::run::span::Gated;
use crate::run::tools::RunTools;
use crate::run::{LoopOutcome, LoopStatus, ToolLoop};
use crate::store::{Heartbeat, PausedTurn, RunId, RunState, RunStore as _, StoreError};

impl ToolLoop {
    /// Asks the approver, if there is one, about each pause of the run, and resumes it with
    /// its decisions (its future holds a second run: the caller boxes it), until the run stops
    /// otherwise (or the decisions are refused: the run then stays paused, as it stands). An
    /// approver still deciding at the pause's deadline is not waited for: the deadline decides.
    pub(super) async fn decide_pauses(
        &self,
        conversation: &mut Vec<Message>,
        mut outcome: LoopOutcome,
        cancel: &CancellationToken,
    ) -> LoopOutcome {
        while let (Some(approver), LoopStatus::Paused(paused)) =
            (&self.deciding.approver, &outcome.status)
        {
            // An approver that has not answered by the pause's deadline is answered for.
            let waited = match paused.deadline() {
                Some(deadline) => {
                    let left = deadline
                        .duration_since(std::time::SystemTime::now())
                        .unwrap_or_default();
                    tokio::time::timeout(left, approver.decide(paused))
                        .await
                        .ok()
                }
                None => Some(approver.decide(paused).await),
            };
            let mut decisions = waited.unwrap_or_else(|| paused.expiry());
            if decisions.decider().is_none() {
                decisions = decisions.with_decider("approver");
            }
            let mut resumed = self
                .resume_decided(conversation, paused.id(), &decisions, cancel)
                .await;
            // An answer that came in time but reached the gate after the deadline: the
            // deadline decides.
            if let Err(GateError::DeadlinePassed { .. }) = resumed {
                resumed = self
                    .resume_decided(conversation, paused.id(), &paused.expiry(), cancel)
                    .await;
            }
            match resumed {
                Ok(next) => outcome = next,
                Err(error) => {
                    tracing::error!(run = %paused.id(), error = %error, "the approver's decisions were refused; the run stays paused");
                    break;
                }
            }
        }
        outcome
    }

    /// Begins a run and drives it until it stops; `remembered` is the id of the conversation
    /// a chat memory keeps for it, if any.
    pub(super) async fn start(
        &self,
        conversation: &mut Vec<Message>,
        remembered: Option<&str>,
        cancel: &CancellationToken,
    ) -> LoopOutcome {
        let mut state = RunState::new(RunId::next());
        state.conversation = remembered.map(str::to_owned);
        let tools = self
            .callees
            .run_tools(self.options.defer_threshold, state.found.clone());
        if let Some(store) = &self.records.store {
            if let Err(error) = store.begin(&state.id, self.records.lease).await {
                // Nothing ran: there is nothing to roll back or record.
                return LoopOutcome::not_started(state.id, error);
            }
        }
        self.drive(conversation, state, tools, Resumed::Rounds, cancel)
            .await
    }

    /// Resumes the run paused under `id` with `decisions`, checked against the copy kept
    /// (see [`resume`](ToolLoop::resume)).
    pub(super) async fn resume_decided(
        &self,
        conversation: &mut Vec<Message>,
        id: &RunId,
        decisions: &ToolCallDecisions,
        cancel: &CancellationToken,
    ) -> Result<LoopOutcome, GateError> {
        // A person's arguments are checked against the tool the call names, among the loop's
        // tools; a consumed server's tool not listed yet is checked by its server when called.
        // In a block of its own: the run that follows holds none of it.
        let (taken, resolutions) = {
            let tools = self
                .callees
                .run_tools(self.options.defer_threshold, Default::default());
            let check = |call: &crate::model::ToolCall| match tools.get(&call.name) {
                Some(_) => tools
                    .registry_for(&call.name)
                    .check(&call.name, &call.arguments),
                None => Ok(()),
            };
            match &self.records.store {
                Some(store) => {
                    self.deciding
                        .gate
                        .take_decided(&**store, id, decisions, self.records.lease, &check)
                        .await?
                }
                None => {
                    let taken = self
                        .deciding
                        .gate
                        .take_decided(
                            &self.records.parked,
                            id,
                            decisions,
                            self.records.lease,
                            &check,
                        )
                        .await?;
                    // The run goes on in this process alone; the store remembers it resumed, so
                    // that a second resume is told it was decided already.
                    self.records.parked.finish(id).await?;
                    taken
                }
            }
        };
        let gated = Gated::decided(&taken, resolutions, decisions);
        // Written into the history as it goes: running now, then how it ended.
        let mut decided = history::running(&taken, conversation);
        history::keep(self.records.run_store(), &decided).await;
        let outcome = self.resume_taken(conversation, taken, gated, cancel).await;
        decided.ended = Some(history::ended(&outcome));
        history::keep(self.records.run_store(), &decided).await;
        Ok(outcome)
    }

    /// The paused turn, and whatever follows, once taken.
    async fn resume_taken(
        &self,
        conversation: &mut Vec<Message>,
        paused: PausedTurn,
        resolutions: Vec<Gated>,
        cancel: &CancellationToken,
    ) -> LoopOutcome {
        let reply = paused.reply().clone();
        let pause = paused.pause().clone();
        let mut state = paused.run;
        state.decided.push(pause);
        let resumed = match state.budget.asked.take() {
            Some(ask) => self.budget_decided(&mut state, ask, reply, resolutions),
            None => Resumed::Round(reply, resolutions),
        };
        let mut tools = self
            .callees
            .run_tools(self.options.defer_threshold, state.found.clone());
        self.callees.refresh(&mut tools, &self.observers).await;
        self.drive(conversation, state, tools, resumed, cancel)
            .await
    }

    /// Runs a begun or taken run to its end under its lease: the paused reply's round first
    /// when resuming, then rounds until the run stops, then the rollback if it did not end
    /// well.
    ///
    /// Not an `async fn`: one of those keeps each argument taken by value twice in its future
    /// (as the argument, and as the local it is moved into), and this future is inside every
    /// run's.
    #[allow(clippy::manual_async_fn)]
    pub(super) fn drive<'a>(
        &'a self,
        conversation: &'a mut Vec<Message>,
        mut state: RunState,
        mut tools: RunTools<'a>,
        resumed: Resumed,
        cancel: &'a CancellationToken,
    ) -> impl std::future::Future<Output = LoopOutcome> + 'a {
        async move {
            state.started = self.options.budget.start_clock();
            // The run's own token: cancelled by the caller's, or by the heartbeat on a takeover.
            let run_cancel = cancel.child_token();
            let heartbeat = Heartbeat::start(
                self.records.store.as_ref(),
                &state.id,
                self.records.lease,
                &run_cancel,
            );
            // Written so that nothing of the resumed round is held while the rounds run.
            let mut status = 'run: {
                match resumed {
                    Resumed::Round(reply, resolutions) => {
                        if let RoundEnd::Stop(status) = self
                            .round(
                                conversation,
                                &mut state,
                                &tools,
                                reply,
                                resolutions,
                                &run_cancel,
                            )
                            .await
                        {
                            break 'run status;
                        }
                    }
                    Resumed::LastRound(reply, resolutions, status) => {
                        // Every call is denied: the round writes their answers and ends
                        // nothing else, whatever it says.
                        let _ = self
                            .round(
                                conversation,
                                &mut state,
                                &tools,
                                reply,
                                resolutions,
                                &run_cancel,
                            )
                            .await;
                        break 'run status;
                    }
                    Resumed::Stopped(status) => break 'run status,
                    Resumed::Rounds => {}
                }
                self.rounds(conversation, &mut state, &mut tools, &run_cancel)
                    .await
            };
            // Whatever the last round gave, a run taken over is the new owner's to end. A paused
            // run is not running any more: a renewal that met it paused lost nothing (a run taken
            // over before could not have paused).
            if heartbeat.is_lost() && !matches!(status, LoopStatus::Paused(_)) {
                state.store_error = Some(Box::new(StoreError::Lost(state.id.to_string())));
                status = LoopStatus::StoreFailed;
            }
            self.end_run(conversation, state, &tools, status, heartbeat)
                .await
        }
    }
}
