//! `Watch`: follow the session (`attach`, `/events`): what the turn in flight streamed so
//! far, then every event of every request and each stored change.

use super::events::Following;
use super::{Actor, ActorHandle, Command, Reply, Run};
use crate::session::SessionError;

/// [`ActorHandle::watch`]'s command.
pub(super) struct WatchCommand {
    reply: Reply<Following>,
}

impl ActorHandle {
    /// Follows the session: what the turn in flight streamed so far, then every event of
    /// every request from now on, and each change once stored. A watched session stays
    /// loaded; the stream ends when the daemon stops.
    pub async fn watch(&self) -> Result<Following, SessionError> {
        self.call(|reply| Command::Watch(WatchCommand { reply }))
            .await
    }
}

impl Run for WatchCommand {
    async fn run(self, actor: &mut Actor) {
        let in_flight = actor.inflight.is_some();
        let _ = self.reply.send(Ok(actor.watchers.subscribe(in_flight)));
    }
}
