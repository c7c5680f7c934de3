//! The store's health as `omnid status` shows it: ok, or failing since when and why. A
//! write that could not be made (a full disk, an I/O error) marks it failing; the next write
//! that succeeds marks it ok again.

use std::sync::{Mutex, MutexGuard};

use crate::time::now_ms;

/// Why the store is failing, as last seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failing {
    /// When the first failure of this spell happened, ms since the epoch.
    pub since_ms: u64,
    /// The latest failure, in one sentence.
    pub reason: String,
    /// The failure was the free-space guard refusing a write (sled itself is healthy).
    pub disk_full: bool,
}

/// Ok (`None`) or failing.
#[derive(Debug, Default)]
pub struct Health(Mutex<Option<Failing>>);

impl Health {
    fn state(&self) -> MutexGuard<'_, Option<Failing>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A write failed; the spell keeps its start time.
    pub fn failed(&self, reason: String, disk_full: bool) {
        let mut state = self.state();
        let since_ms = state.as_ref().map_or_else(now_ms, |f| f.since_ms);
        *state = Some(Failing {
            since_ms,
            reason,
            disk_full,
        });
    }

    /// A write succeeded.
    pub fn recovered(&self) {
        let mut state = self.state();
        if let Some(failing) = state.take() {
            tracing::info!(since_ms = failing.since_ms, "the store writes again");
        }
    }

    /// The current state.
    pub fn get(&self) -> Option<Failing> {
        self.state().clone()
    }
}
