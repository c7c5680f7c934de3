//! The way in to a session's actor: a cheap, cloneable handle. Its methods, one per
//! command, each send that command and wait for its reply; each is written in the file of
//! its command's work.

use std::sync::{Arc, Weak};

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::events::Watchers;
use super::{Actor, Command, Loaded, MAILBOX, Reply};
use crate::model::SessionRecord;
use crate::services::Services;
use crate::session::SessionError;
use crate::session::tree::Tree;

/// A cheap, cloneable way to talk to a session's actor.
#[derive(Clone)]
pub struct ActorHandle {
    id: Uuid,
    commands: mpsc::Sender<Command>,
}

impl ActorHandle {
    /// Starts the actor for a session whose record and tree were loaded from the store;
    /// it leaves `loaded` (the registry's map) when it ends.
    /// `client_made`: made by a client of omnid's own, not recorded from the proxy.
    pub fn spawn(
        ctx: Arc<Services>,
        record: SessionRecord,
        tree: Tree,
        loaded: Weak<Loaded>,
        client_made: bool,
    ) -> Self {
        let (commands, inbox) = mpsc::channel(MAILBOX);
        let id = record.id;
        let actor = Actor {
            ctx: ctx.clone(),
            record,
            tree,
            inbox,
            watchers: Watchers::default(),
            held: Default::default(),
            measured: None,
            inflight: None,
            life: Default::default(),
            retired: false,
            client_made,
            loaded,
        };
        ctx.tracker.spawn(actor.run());
        Self { id, commands }
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
