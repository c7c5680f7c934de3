//! `Close`: the actor ends once nothing is in flight, before its session is purged, or
//! when another omnid changed it (the session is read again).

use super::{Actor, ActorHandle, Command, Reply, Run};
use crate::session::SessionError;

/// [`ActorHandle::close`]'s command.
pub(super) struct CloseCommand {
    reply: Reply<()>,
}

impl ActorHandle {
    /// Ends the actor once nothing is in flight (refused while an answer streams): the
    /// session is about to be purged, or is read again.
    pub async fn close(&self) -> Result<(), SessionError> {
        self.call(|reply| Command::Close(CloseCommand { reply }))
            .await
    }
}

impl Run for CloseCommand {
    async fn run(self, actor: &mut Actor) {
        let closed = actor.refuse_if_busy();
        if closed.is_ok() {
            // Takes nothing more: the session is purged or read again.
            actor.retired = true;
            actor.inbox.close();
        }
        let _ = self.reply.send(closed);
    }
}
