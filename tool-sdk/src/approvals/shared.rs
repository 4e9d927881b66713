//! What the page's handlers share: the loop, the memory, the checks, and the outcomes kept;
//! and how they read the waiting runs.

use std::sync::Arc;

use super::authorize::Authorize;
use super::csrf::Csrf;
use super::outcomes::Outcomes;
use super::render::Waiting;
use crate::run::ToolLoop;
use crate::store::{ChatMemory, PausedRun, StoreError};

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
            waiting.push(Waiting {
                run,
                asked: self.last_user_message(run).await,
                registry: self.agent.registry(),
            });
        }
        waiting
    }

    async fn last_user_message(&self, run: &PausedRun) -> Option<String> {
        let conversation = run.turn.conversation()?;
        let messages = self.memory.load(conversation).await.ok()?;
        messages.iter().rev().find_map(|message| match message {
            crate::model::Message::User { content } => Some(content.clone()),
            _ => None,
        })
    }
}
