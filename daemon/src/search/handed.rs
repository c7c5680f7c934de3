//! What the store hands the indexer, kept until its next batch: a commit appends the
//! sessions it changed and wakes the indexer only when nothing was waiting already. Under
//! proxy load a commit every fraction of a millisecond woke the indexer's thread each time
//! (about 3,900 wake-ups a second, each taking the one core from the answers); now a batch
//! costs one.

use std::sync::{Mutex, MutexGuard};

use crate::store::Applied;

/// Durable changes handed over and not yet taken into a batch.
#[derive(Default)]
pub(super) struct Handed {
    changed: Mutex<Vec<Applied>>,
}

impl Handed {
    fn lock(&self) -> MutexGuard<'_, Vec<Applied>> {
        self.changed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `changed` for the next batch; true when nothing was waiting before, so the
    /// indexer must be told.
    pub fn hand_over(&self, changed: Vec<Applied>) -> bool {
        let mut waiting = self.lock();
        let first = waiting.is_empty();
        waiting.extend(changed);
        first && !waiting.is_empty()
    }

    /// Everything handed over so far, for the batch being applied.
    pub fn take(&self) -> Vec<Applied> {
        std::mem::take(&mut *self.lock())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn change() -> Vec<Applied> {
        vec![Applied {
            session: Uuid::new_v4(),
            nodes: Vec::new(),
        }]
    }

    #[test]
    fn only_the_first_change_since_a_batch_took_them_wakes_the_indexer() {
        let handed = Handed::default();
        assert!(
            !handed.hand_over(Vec::new()),
            "nothing handed over wakes no one"
        );
        assert!(handed.hand_over(change()));
        assert!(!handed.hand_over(change()));
        assert!(!handed.hand_over(change()));
        assert_eq!(handed.take().len(), 3);
        assert!(handed.take().is_empty());
        assert!(
            handed.hand_over(change()),
            "after a batch took them, the next wakes it"
        );
    }
}
