//! Which calls of a reply may run at the same time, as [`Concurrency`] says: whether a call may
//! start given what is running. The loop asks it for a reply it has whole and for one still
//! streaming in, so both run the same calls together.

use crate::run::Concurrency;

/// The rule of a run's [`Concurrency`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    /// Calls running at once, at most.
    limit: usize,
    /// Only calls of read-only tools run together; any other runs alone.
    reads_together: bool,
}

/// What is running when a call asks to start.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Running {
    /// Calls running.
    pub(crate) calls: usize,
    /// Whether one of them is not a read.
    pub(crate) a_write: bool,
}

impl Schedule {
    pub(crate) fn of(concurrency: Concurrency) -> Self {
        let (limit, reads_together) = match concurrency {
            Concurrency::Sequential => (1, false),
            Concurrency::Bounded(limit) => (limit.max(1), false),
            Concurrency::ReadsTogether(limit) => (limit.max(1), true),
        };
        Self {
            limit,
            reads_together,
        }
    }

    /// Whether the next call in reply order, a read or not, may start now. Calls start in
    /// reply order: one that may not start holds back those after it.
    pub(crate) fn admits(&self, read: bool, running: Running) -> bool {
        if !self.reads_together {
            return running.calls < self.limit;
        }
        if read {
            !running.a_write && running.calls < self.limit
        } else {
            running.calls == 0
        }
    }

    /// Whether it tells reads from other calls: when it does not, no call needs to be asked
    /// which it is.
    pub(crate) fn tells_reads(&self) -> bool {
        self.reads_together
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(calls: usize, a_write: bool) -> Running {
        Running { calls, a_write }
    }

    #[test]
    fn reads_run_together_and_a_write_alone() {
        let schedule = Schedule::of(Concurrency::ReadsTogether(3));
        assert!(schedule.admits(true, running(2, false)));
        assert!(!schedule.admits(true, running(3, false)));
        assert!(!schedule.admits(true, running(1, true)));
        assert!(schedule.admits(false, running(0, false)));
        assert!(!schedule.admits(false, running(1, false)));
    }

    #[test]
    fn the_other_modes_count_calls_alone() {
        let sequential = Schedule::of(Concurrency::Sequential);
        assert!(sequential.admits(false, running(0, false)));
        assert!(!sequential.admits(true, running(1, false)));
        assert!(!sequential.tells_reads());
        let bounded = Schedule::of(Concurrency::Bounded(2));
        assert!(bounded.admits(false, running(1, true)));
        assert!(!bounded.admits(true, running(2, false)));
        assert!(Schedule::of(Concurrency::Bounded(0)).admits(false, running(0, false)));
    }
}
