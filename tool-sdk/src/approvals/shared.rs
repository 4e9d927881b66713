//! What the page's handlers share: the loop, the memory, the checks, and the outcomes kept;
//! and how they read the waiting runs.

use std::sync::Arc;

use super::authorize::Authorize;
use super::csrf::Csrf;
use super::outcomes::Outcomes;
use super::render::{Done, Waiting};
use crate::model::Message;
use crate::run::ToolLoop;
use crate::store::{ChatMemory, PausedRun, PausedTurn, StoreError};

/// What the page's handlers share.
pub(super) struct Shared {
    pub(super) agent: Arc<ToolLoop>,
    pub(super) memory: Arc<dyn ChatMemory>,
    pub(super) authorize: Box<Authorize>,
    pub(super) title: String,
    pub(super) listed: usize,
    pub(super) csrf: Csrf,
    pub(super) outcomes: Outcomes,
}

impl Shared {
    /// The runs waiting, newest first, as many as the page lists.
    pub(super) async fn paused(&self) -> Result<Vec<PausedRun>, StoreError> {
        self.agent.run_store().list_paused(self.listed).await
    }

    /// Each paused run with what the page shows of it.
    pub(super) async fn waiting<'a>(&'a self, paused: &'a [PausedRun]) -> Vec<Waiting<'a>> {
        let mut waiting = Vec::with_capacity(paused.len());
        for run in paused {
            let messages = match run.turn.conversation() {
                Some(conversation) => self.memory.load(conversation).await.ok(),
                None => None,
            };
            let messages = messages.unwrap_or_default();
            waiting.push(Waiting {
                run,
                asked: last_user_message(&messages),
                done: done(&run.turn, &messages),
                registry: self.agent.registry(),
            });
        }
        waiting
    }

    /// What the person asked in the conversation kept under `conversation`.
    pub(super) async fn asked(&self, conversation: &str) -> Option<String> {
        let messages = self.memory.load(conversation).await.ok()?;
        last_user_message(&messages)
    }
}

/// The conversation's last user message: what the person asked.
fn last_user_message(messages: &[Message]) -> Option<String> {
    messages.iter().rev().find_map(|message| match message {
        Message::User { content } => Some(content.clone()),
        _ => None,
    })
}

/// The calls the paused run made before this pause, each with the result the model read (found
/// in the conversation by the call's id, when it has one).
fn done(turn: &PausedTurn, messages: &[Message]) -> Vec<Done> {
    turn.run
        .calls
        .iter()
        .map(|summary| {
            let result = summary.call.id.as_deref().and_then(|id| {
                messages.iter().rev().find_map(|message| match message {
                    Message::Tool(result) if result.call_id.as_deref() == Some(id) => {
                        Some(result.content.clone())
                    }
                    _ => None,
                })
            });
            Done {
                summary: summary.clone(),
                result,
            }
        })
        .collect()
}
