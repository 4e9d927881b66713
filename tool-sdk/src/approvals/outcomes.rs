//! The outcomes of the latest decisions, kept so that the page shows each after its form is
//! submitted (post, redirect, get): a reload shows it again instead of submitting twice.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use crate::store::RunId;

/// How many outcomes are kept: the oldest is forgotten when another comes.
const KEPT: usize = 100;

/// The rendered outcomes of the latest decisions, by run.
#[derive(Default)]
pub(super) struct Outcomes(Mutex<VecDeque<(RunId, Arc<str>)>>);

impl Outcomes {
    pub(super) fn keep(&self, run: RunId, page: String) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|(id, _)| *id != run);
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((run, page.into()));
    }

    pub(super) fn get(&self, run: &RunId) -> Option<Arc<str>> {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter()
            .rev()
            .find(|(id, _)| id == run)
            .map(|(_, page)| Arc::clone(page))
    }
}
