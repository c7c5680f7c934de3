//! How many sessions the store holds, without walking every record on each question (sled
//! counts a tree by iterating it): counted once, when first asked, then kept as sessions are
//! created and purged; a clean shutdown keeps it for the next start (`clean_close.rs`).

use std::sync::{Mutex, MutexGuard};

use super::{Change, SledStore, StoreError};

/// The number of sessions, once counted.
#[derive(Debug, Default)]
pub(super) struct SessionCount(Mutex<Option<usize>>);

impl SessionCount {
    /// A count known already (kept by the last clean shutdown), or none yet.
    pub(super) fn known(sessions: Option<usize>) -> Self {
        Self(Mutex::new(sessions))
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Option<usize>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl SledStore {
    /// How many sessions exist: counted on the first call, kept since.
    pub fn session_count(&self) -> usize {
        let mut count = self.count.lock();
        if let Some(known) = *count {
            return known;
        }
        let Ok(db) = self.db.get() else {
            return 0;
        };
        let counted = db.sessions.len();
        *count = Some(counted);
        counted
    }

    /// Commits the change that creates a session (see [`SledStore::commit`]) and counts it.
    /// The write and the count happen under the count's lock, so a count taken meanwhile
    /// sees the session either in the tree or in the increment, never in both.
    pub async fn commit_new(&self, change: &Change<'_>) -> Result<(), StoreError> {
        {
            let mut count = self.count.lock();
            self.apply(change)?;
            if let Some(known) = count.as_mut() {
                *known += 1;
            }
        }
        self.made_durable(change).await
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;
    use crate::model::SessionRecord;

    fn new_session(id: Uuid) -> SessionRecord {
        SessionRecord::new(id, 1)
    }

    #[tokio::test]
    async fn the_count_follows_created_sessions_once_counted() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        let first = new_session(Uuid::new_v4());
        let change = |record| Change::record_only(record);
        store.commit_new(&change(&first)).await.unwrap();
        assert_eq!(store.session_count(), 1, "counted from the tree");
        // A change to an existing session is not a new one.
        store.commit(&change(&first)).await.unwrap();
        let second = new_session(Uuid::new_v4());
        store.commit_new(&change(&second)).await.unwrap();
        assert_eq!(store.session_count(), 2, "kept as sessions are created");
        store.close().unwrap();
        let reopened = SledStore::open(dir.path()).unwrap();
        assert_eq!(reopened.session_count(), 2, "counted again after a restart");
    }

    /// A clean shutdown keeps the count: the next start knows it before anyone asks, so
    /// no record is read to count them; a start after a shutdown that was not clean counts.
    #[tokio::test]
    async fn a_clean_shutdown_keeps_the_count_for_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        for _ in 0..2 {
            let record = new_session(Uuid::new_v4());
            let change = Change::record_only(&record);
            store.commit_new(&change).await.unwrap();
        }
        assert_eq!(store.session_count(), 2);
        store.mark_closed_cleanly();
        store.close().unwrap();
        let reopened = SledStore::open(dir.path()).unwrap();
        assert_eq!(
            *reopened.count.lock(),
            Some(2),
            "known from the clean shutdown"
        );
        reopened.close().unwrap();
        let unclean = SledStore::open(dir.path()).unwrap();
        assert_eq!(*unclean.count.lock(), None, "no stamp: counted when asked");
        assert_eq!(unclean.session_count(), 2);
    }
}
