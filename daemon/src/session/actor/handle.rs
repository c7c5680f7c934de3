//! The way in to a session's actor: a cheap, cloneable handle. Its methods, one per
//! command, each send that command and wait for its reply; each is written in the file of
//! its command's work.

use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::events::Watchers;
use super::{Actor, Command, Loaded, MAILBOX, Reply};
use crate::model::SessionRecord;
use crate::services::Services;
use crate::session::SessionError;
use crate::session::tree::Tree;

/// The session's record as its actor holds it (for a shared store; `None` otherwise).
pub(super) type Holds = Arc<Mutex<Option<SessionRecord>>>;

/// A cheap, cloneable way to talk to a session's actor.
#[derive(Clone)]
pub struct ActorHandle {
    id: Uuid,
    /// The record the actor holds, kept for a shared store only: another omnid may
    /// change the session, and the registry compares this with the store's.
    holds: Holds,
    /// Who follows the session here: kept for the actor that replaces this one (another
    /// omnid changed the session), and for events relayed from other instances.
    watchers: Watchers,
    commands: mpsc::Sender<Command>,
}

impl ActorHandle {
    /// Starts the actor for a session whose record and tree were loaded from the store;
    /// it leaves `loaded` (the registry's map) when it ends.
    /// `client_made`: made by a client of omnid's own, not recorded from the proxy;
    /// `followed`: the watchers of the actor this one replaces, if any.
    pub(in crate::session) fn spawn(
        ctx: Arc<Services>,
        record: SessionRecord,
        tree: Tree,
        loaded: Weak<Loaded>,
        client_made: bool,
        followed: Option<Watchers>,
    ) -> Self {
        let (commands, inbox) = mpsc::channel(MAILBOX);
        let id = record.id;
        let watchers = followed.unwrap_or_else(|| Watchers::new(id, ctx.store.live_outlet()));
        let holds = Arc::new(Mutex::new(ctx.store.is_shared().then(|| record.clone())));
        let actor = Actor {
            ctx: ctx.clone(),
            record,
            tree,
            inbox,
            watchers: watchers.clone(),
            held: Default::default(),
            measured: None,
            inflight: None,
            life: Default::default(),
            retired: false,
            client_made,
            holds: holds.clone(),
            loaded,
            lease: None,
        };
        ctx.tracker.spawn(actor.run());
        Self {
            id,
            commands,
            holds,
            watchers,
        }
    }

    /// The session's watchers here, for the actor that replaces this one.
    pub(in crate::session) fn watchers(&self) -> Watchers {
        self.watchers.clone()
    }

    /// Tells whoever follows the session here what another instance's turn did (an event
    /// as the other instance published it).
    pub fn relay(&self, body: &[u8]) {
        self.watchers.relay_encoded(body);
    }

    /// Whether the actor holds the session as `stored` has it (always, on the embedded
    /// store: no one else writes it).
    pub fn holds(&self, stored: &SessionRecord) -> bool {
        let held = self.holds.lock().unwrap_or_else(|p| p.into_inner());
        held.as_ref().is_none_or(|held| held == stored)
    }

    /// Whether the actor has ended (shutdown, or retired after a store failure).
    pub fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }

    /// Sends the command `make` builds around a reply channel, and waits for the reply;
    /// busy when the mailbox is full, unloaded when the actor has ended.
    pub(super) async fn call<T>(
        &self,
        make: impl FnOnce(Reply<T>) -> Command,
    ) -> Result<T, SessionError> {
        let (reply, answer) = oneshot::channel();
        self.commands.try_send(make(reply)).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => SessionError::Busy(self.id),
            mpsc::error::TrySendError::Closed(_) => SessionError::Unloaded(self.id),
        })?;
        answer.await.map_err(|_| SessionError::shutting_down())?
    }
}
