//! The page's server keeping its runs' deadlines: every few seconds it resumes the runs whose
//! pause waited past its deadline, each waiting call denied, and keeps what came of each to show.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::render::outcome_page;
use super::shared::Shared;

/// How often the page's server looks for overdue runs unless told otherwise.
pub(super) const DEFAULT_SWEEP: Duration = Duration::from_secs(5);

/// Resumes the overdue runs every `every` until `shutdown` is cancelled. A sweep in progress
/// finishes first: each resume it began runs to its end.
pub(super) async fn sweep(shared: Arc<Shared>, every: Duration, shutdown: CancellationToken) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = ticks.tick() => {}
        }
        match shared.agent.expire_overdue(&*shared.memory).await {
            Ok(expired) => {
                for run in expired {
                    let asked = shared.asked(&run.conversation).await;
                    let page = outcome_page(&shared.title, &run.outcome, asked.as_deref());
                    shared.outcomes.keep(run.run, page);
                }
            }
            Err(error) => tracing::warn!(%error, "the page's sweep for overdue runs failed"),
        }
    }
}
