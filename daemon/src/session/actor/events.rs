//! Where a session's events go: to the client whose request produced them, and to every
//! client watching the session (`attach`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use crate::session::outcome::SessionEvent;
use crate::store::LiveOutlet;

/// How many events a slow watcher may fall behind before it misses some (and is told).
pub const WATCH_BACKLOG: usize = 1024;

/// A new watcher's start: what the turn in flight has streamed so far, then every event.
pub struct Following {
    /// The events of the turn in flight until now, oldest first (consecutive pieces of text
    /// or thought joined into one); empty when nothing is in flight.
    pub so_far: Vec<SessionEvent>,
    /// Every event from the last of `so_far` on.
    pub events: broadcast::Receiver<SessionEvent>,
}

/// A session's watchers: the channel is made by the first `watch`, so the sessions nobody
/// follows (nearly all) never hold its backlog (a few hundred KiB). The turn in flight's
/// events are kept until a change is stored, so whoever starts following mid-answer sees
/// the answer whole, as those who followed from the start did. On a shared store every
/// event also goes out to the other instances (`outlet`), whose watchers hear it relayed
/// ([`Watchers::relay`]) as if the turn ran there.
#[derive(Clone, Default)]
pub(in crate::session) struct Watchers(Arc<Shared>);

#[derive(Default)]
struct Shared {
    sender: OnceLock<broadcast::Sender<SessionEvent>>,
    turn: Mutex<Vec<SessionEvent>>,
    /// The session, and where its events go to the other instances.
    outlet: Option<(Uuid, LiveOutlet)>,
    /// A turn relayed from another instance is in flight.
    relayed_turn: AtomicBool,
}

impl Watchers {
    /// The watchers of `session`, its events also published through `outlet`.
    pub fn new(session: Uuid, outlet: Option<LiveOutlet>) -> Self {
        Self(Arc::new(Shared {
            outlet: outlet.map(|outlet| (session, outlet)),
            ..Shared::default()
        }))
    }

    /// An event another instance published (as [`Watchers::send`] encodes it), for the
    /// watchers here; one that cannot be read is dropped.
    pub fn relay_encoded(&self, body: &[u8]) {
        match serde_json::from_slice::<SessionEvent>(body) {
            Ok(event) => self.relay(event),
            Err(error) => tracing::debug!(%error, "an event from another omnid could not be read"),
        }
    }

    /// An event of another instance's, for the watchers here (and not published again).
    fn relay(&self, event: SessionEvent) {
        let mut turn = self.0.turn.lock().unwrap_or_else(PoisonError::into_inner);
        keep_for_latecomers(&mut turn, &event);
        self.0
            .relayed_turn
            .store(!turn.is_empty(), Ordering::Release);
        self.deliver(event);
    }

    /// A new watcher of every event from now on, with the turn's events so far when
    /// `in_flight` (taken under the same lock as each event is sent: no gap, no repeat).
    pub fn subscribe(&self, in_flight: bool) -> Following {
        let turn = self.0.turn.lock().unwrap_or_else(PoisonError::into_inner);
        let events = self
            .0
            .sender
            .get_or_init(|| broadcast::channel(WATCH_BACKLOG).0)
            .subscribe();
        let in_flight = in_flight || self.0.relayed_turn.load(Ordering::Acquire);
        let so_far = if in_flight { turn.clone() } else { Vec::new() };
        Following { so_far, events }
    }

    /// How many are watching.
    pub fn count(&self) -> usize {
        self.0
            .sender
            .get()
            .map_or(0, broadcast::Sender::receiver_count)
    }

    fn send(&self, event: &SessionEvent) {
        let mut turn = self.0.turn.lock().unwrap_or_else(PoisonError::into_inner);
        keep_for_latecomers(&mut turn, event);
        if let Some((session, outlet)) = &self.0.outlet {
            match serde_json::to_vec(event) {
                Ok(body) => outlet.send(*session, body),
                Err(error) => tracing::debug!(%error, "an event could not be published"),
            }
        }
        self.deliver(event.clone());
    }

    /// Hands an event to whoever watches here (called under the turn's lock).
    fn deliver(&self, event: SessionEvent) {
        if let Some(sender) = self.0.sender.get()
            && sender.receiver_count() > 0
        {
            let _ = sender.send(event);
        }
    }
}

/// Keeps what a turn streams; a stored change ends the turn (its outcome is in the store,
/// where a latecomer reads it).
fn keep_for_latecomers(turn: &mut Vec<SessionEvent>, event: &SessionEvent) {
    match (turn.last_mut(), event) {
        (Some(SessionEvent::Text(so_far)), SessionEvent::Text(more))
        | (Some(SessionEvent::Thought(so_far)), SessionEvent::Thought(more)) => {
            so_far.push_str(more)
        }
        (
            _,
            SessionEvent::PromptStored { .. }
            | SessionEvent::PromptsMerged { .. }
            | SessionEvent::Text(_)
            | SessionEvent::Thought(_)
            | SessionEvent::FunctionCall(_)
            | SessionEvent::Retrying(_)
            | SessionEvent::Compacting(_),
        ) => turn.push(event.clone()),
        (
            _,
            SessionEvent::Answered(_)
            | SessionEvent::Failed(_)
            | SessionEvent::Moved(_)
            | SessionEvent::Recovered(_)
            | SessionEvent::Resumed(_)
            | SessionEvent::ToolResultStored(..)
            | SessionEvent::Compacted(_),
        ) => turn.clear(),
        // The session's own fields: nothing of the turn.
        (_, SessionEvent::Changed(_)) => {}
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
