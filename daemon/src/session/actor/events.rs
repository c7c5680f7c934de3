//! Where a session's events go: to the client whose request produced them, and to every
//! client watching the session (`attach`).

use std::sync::{Arc, OnceLock};

use tokio::sync::{broadcast, mpsc};

use crate::session::outcome::SessionEvent;

/// How many events a slow watcher may fall behind before it misses some (and is told).
pub const WATCH_BACKLOG: usize = 1024;

/// A session's watchers: the channel is made by the first `watch`, so the sessions nobody
/// follows (nearly all) never hold its backlog (a few hundred KiB).
#[derive(Clone, Default)]
pub(super) struct Watchers(Arc<OnceLock<broadcast::Sender<SessionEvent>>>);

impl Watchers {
    /// A new watcher of every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<SessionEvent> {
        self.0
            .get_or_init(|| broadcast::channel(WATCH_BACKLOG).0)
            .subscribe()
    }

    /// How many are watching.
    pub fn count(&self) -> usize {
        self.0.get().map_or(0, broadcast::Sender::receiver_count)
    }

    fn send(&self, event: &SessionEvent) {
        if let Some(sender) = self.0.get()
            && sender.receiver_count() > 0
        {
            let _ = sender.send(event.clone());
        }
    }
}

/// One request's event outlet: the requester (if any) and the session's watchers.
#[derive(Clone)]
pub(super) struct Events {
    requester: Option<mpsc::UnboundedSender<SessionEvent>>,
    watchers: Watchers,
    /// Only progress passes (retries), not the text streamed: a compaction's summary is
    /// not an answer.
    progress_only: bool,
}

impl Events {
    /// Events for `requester`, also shown to `watchers`.
    pub fn new(requester: Option<mpsc::UnboundedSender<SessionEvent>>, watchers: Watchers) -> Self {
        Self {
            requester,
            watchers,
            progress_only: false,
        }
    }

    /// The same outlet, passing only progress (retries and failures), not streamed text.
    pub fn progress_only(self) -> Self {
        Self {
            progress_only: true,
            ..self
        }
    }

    /// Sends one event. Nobody listening is not an error: the work goes on regardless.
    pub fn send(&self, event: SessionEvent) {
        let streamed = matches!(
            event,
            SessionEvent::Text(_) | SessionEvent::Thought(_) | SessionEvent::FunctionCall(_)
        );
        if self.progress_only && streamed {
            return;
        }
        self.watchers.send(&event);
        if let Some(requester) = &self.requester {
            let _ = requester.send(event);
        }
    }
}
