//! Sessions by last activity, newest first, read a chunk at a time: a listing's page or the
//! search for the current session at start reads only as far as it goes, whichever backend
//! holds the index (sled's tree, or the database's index on `sessions`).

use std::collections::VecDeque;

use uuid::Uuid;

use super::{Backend, Store, StoreError};

/// Entries read from the backend at once.
const CHUNK: usize = 256;

/// A walk through sessions by last activity (see [`Store::by_activity`]).
pub struct ByActivity<'a> {
    store: &'a Store,
    /// Where the next chunk starts (strictly before).
    from: Option<(u64, Uuid)>,
    chunk: VecDeque<(u64, Uuid)>,
    /// The backend has no more.
    done: bool,
}

impl<'a> ByActivity<'a> {
    pub(super) fn new(store: &'a Store, before: Option<(u64, Uuid)>) -> Self {
        Self {
            store,
            from: before,
            chunk: VecDeque::new(),
            done: false,
        }
    }

    /// The next (last activity, id) place, if any.
    pub async fn next(&mut self) -> Result<Option<(u64, Uuid)>, StoreError> {
        if self.chunk.is_empty() && !self.done {
            let read = match &self.store.backend {
                Backend::Sled(store) => store
                    .by_activity(self.from)?
                    .take(CHUNK)
                    .collect::<Result<Vec<_>, _>>()?,
                Backend::Postgres(store) => store.by_activity(self.from, CHUNK).await?,
            };
            self.done = read.len() < CHUNK;
            self.chunk.extend(read);
        }
        let next = self.chunk.pop_front();
        if next.is_some() {
            self.from = next;
        }
        Ok(next)
    }
}
