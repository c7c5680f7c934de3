//! The indexer's catch-up at start. On a shared store whose feed still holds every line
//! after the mark the index kept with its last commit, only the sessions those lines name
//! are read again (a restart after minutes costs a few queries, not one per session);
//! otherwise every session's record is compared with its marker, and the sessions that
//! differ are indexed. Either way the index then keeps where the feed was heard to.

use std::time::Instant;

use super::SearchError;
use super::indexer::Indexer;
use crate::store::{FeedItem, FeedMark};

impl Indexer {
    /// Catches up with the store, and commits.
    pub(super) fn catch_up(&mut self) -> Result<(), SearchError> {
        let started = Instant::now();
        if let Some(since) = self.kept_mark()
            && let Some((items, until)) = self.read(self.shared.store.feed_since(since))?
        {
            let sessions = self.take_in(items)?;
            self.feed_mark = Some(until);
            self.commit()?;
            tracing::info!(sessions, took = ?started.elapsed(), "the search index caught up from the change feed");
            return Ok(());
        }
        // Everything before the feed's start is in the store read now; after it, the feed.
        self.feed_mark = self.shared.store.feed_start();
        let sessions = self.read(self.shared.store.sessions())?;
        let mut changed = 0usize;
        for stored in &sessions {
            if self.index_session(&stored.id, false)? {
                changed += 1;
            }
            if changed > 0 && changed % 200 == 0 {
                self.commit()?;
            }
        }
        self.commit()?;
        tracing::info!(sessions = sessions.len(), changed, took = ?started.elapsed(), "the search index is caught up with the store");
        Ok(())
    }

    /// The feed's mark the index kept with its last commit, if any.
    fn kept_mark(&self) -> Option<FeedMark> {
        let metas = self.open.index.load_metas().ok()?;
        metas.payload?.parse().ok()
    }

    /// Indexes the sessions the feed's lines name (each read from the store), forgets
    /// those purged; how many sessions.
    fn take_in(&mut self, items: Vec<FeedItem>) -> Result<usize, SearchError> {
        let mut changed = std::collections::BTreeSet::new();
        let mut purged = false;
        for item in items {
            match item {
                FeedItem::Committed { session } => {
                    changed.insert(session);
                }
                FeedItem::Purged { session } => {
                    changed.remove(&session);
                    self.delete(&session);
                    self.forgotten.insert(session);
                    purged = true;
                }
                FeedItem::Live { .. } => {}
            }
        }
        for session in &changed {
            self.index_session(session, false)?;
        }
        if purged {
            self.commit()?;
            self.compact()?;
        }
        Ok(changed.len())
    }
}
