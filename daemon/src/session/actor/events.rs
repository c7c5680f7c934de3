//! Where a session's events go: to the client whose request produced them, and to every
//! client watching the session (`attach`).

use tokio::sync::{broadcast, mpsc};

use crate::session::outcome::SessionEvent;

/// How many events a slow watcher may fall behind before it misses some (and is told).
pub const WATCH_BACKLOG: usize = 1024;

/// One request's event outlet: the requester (if any) and the session's watchers.
#[derive(Clone)]
pub(super) struct Events {
    requester: Option<mpsc::UnboundedSender<SessionEvent>>,
    watchers: broadcast::Sender<SessionEvent>,
}

impl Events {
    /// Events for `requester`, also shown to `watchers`.
    pub fn new(
        requester: Option<mpsc::UnboundedSender<SessionEvent>>,
        watchers: broadcast::Sender<SessionEvent>,
    ) -> Self {
        Self {
            requester,
            watchers,
        }
    }

    /// Sends one event. Nobody listening is not an error: the work goes on regardless.
    pub fn send(&self, event: SessionEvent) {
        if self.watchers.receiver_count() > 0 {
            let _ = self.watchers.send(event.clone());
        }
        if let Some(requester) = &self.requester {
            let _ = requester.send(event);
        }
    }
}
