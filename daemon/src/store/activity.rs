//! Sessions by last activity, newest first, read a chunk at a time: a listing's page or the
//! search for the current session at start reads only as far as it goes, whichever backend
//! holds the index (sled's tree, or the database's index on `sessions`).

use std::collections::VecDeque;

use uuid::Uuid;

use super::{Backend, Store, StoreError};

/// Entries read from the backend at once, at first: a listing's page of 10 needs 11, and
/// reading 256 each time cost a page of 10 at 100,000 sessions about as much again as
/// everything else it does (`sessions_ratio_100k` in `cargo bench -p omnid --bench scale`).
const FIRST_CHUNK: usize = 16;

/// Entries read at once at most: each chunk is twice the one before, up to this, so a
/// long walk (the day's sessions for `usage`) takes few reads.
const CHUNK: usize = 256;

/// A walk through sessions by last activity (see [`Store::by_activity`]).
pub struct ByActivity<'a> {
    store: &'a Store,
    /// Where the next chunk starts (strictly before).
    from: Option<(u64, Uuid)>,
    chunk: VecDeque<(u64, Uuid)>,
    /// How many entries the next read asks for.
    wanted: usize,
    /// The backend has no more.
    done: bool,
}

impl<'a> ByActivity<'a> {
    pub(super) fn new(store: &'a Store, before: Option<(u64, Uuid)>) -> Self {
        Self {
            store,
            from: before,
            chunk: VecDeque::new(),
            wanted: FIRST_CHUNK,
            done: false,
        }
    }

    /// The next (last activity, id) place, if any.
    pub async fn next(&mut self) -> Result<Option<(u64, Uuid)>, StoreError> {
        if self.chunk.is_empty() && !self.done {
            let wanted = self.wanted;
            let read = match &self.store.backend {
                Backend::Sled(store) => store
                    .by_activity(self.from)?
                    .take(wanted)
                    .collect::<Result<Vec<_>, _>>()?,
                Backend::Postgres(store) => store.by_activity(self.from, wanted).await?,
            };
            self.done = read.len() < wanted;
            self.wanted = (wanted * 2).min(CHUNK);
            self.chunk.extend(read);
        }
        let next = self.chunk.pop_front();
        if next.is_some() {
            self.from = next;
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::SessionRecord;
    use crate::store::Change;

    /// A walk crosses chunks of every size without skipping or repeating a session.
    #[tokio::test]
    async fn a_walk_reads_growing_chunks_and_meets_every_session_once_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for at in 1..=600 {
            let record = SessionRecord::new(Uuid::new_v4(), at);
            let change = Change::record_only(&record);
            store.commit_new(&change).await.unwrap();
        }
        let mut walk = store.by_activity(None);
        let mut seen = Vec::new();
        while let Some((at, _)) = walk.next().await.unwrap() {
            seen.push(at);
        }
        assert_eq!(seen, (1..=600).rev().collect::<Vec<u64>>());
    }
}
