//! Following the other omnid that share the store (its change feed, `store/feed.rs`):
//! their live events reach whoever follows the session here, as if the turn ran here;
//! their committed changes reach the search index; their purges take the session out of
//! this instance's index and memory too. Nothing to follow on the embedded store.

use std::sync::{Arc, Weak};

use crate::api::Daemon;
use crate::store::{FeedItem, FeedMark};

/// Starts following the other instances, for as long as the store is open.
pub fn other_instances(daemon: &Arc<Daemon>) {
    let weak = Arc::downgrade(daemon);
    let runtime = tokio::runtime::Handle::current();
    let reader = move |items: Vec<FeedItem>, mark: FeedMark| {
        if let Some(daemon) = Weak::upgrade(&weak) {
            for item in items {
                heard(&daemon, item, &runtime);
            }
            // Everything before the mark is heard: the index keeps it with its next commit.
            if let Some(search) = &daemon.search {
                search.followed_to(mark);
            }
        }
    };
    if daemon.services.store.follow(Box::new(reader)) {
        tracing::info!("following the other omnid that share the store");
    }
}

fn heard(daemon: &Arc<Daemon>, item: FeedItem, runtime: &tokio::runtime::Handle) {
    match item {
        FeedItem::Live { session, body } => daemon.sessions.relay(&session, &body),
        FeedItem::Committed { session } => {
            if let Some(search) = &daemon.search {
                search.changed_elsewhere(session);
            }
        }
        FeedItem::Purged { session } => {
            let daemon = daemon.clone();
            runtime.spawn(async move {
                if let Err(error) = daemon.sessions.unload_for_purge(&session).await {
                    tracing::warn!(%session, %error, "a session purged by another omnid is still loaded here");
                }
                if let Some(search) = daemon.search.clone() {
                    let forgotten = tokio::task::spawn_blocking(move || search.forget_session(session));
                    if let Ok(Err(error)) = forgotten.await {
                        tracing::warn!(%session, %error, "a session purged by another omnid is still in the search index here");
                    }
                }
            });
        }
    }
}
