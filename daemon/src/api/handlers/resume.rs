//! `Resume`: lift a session's suspension after repeated failed sends.

use omni_proto::{ErrorReply, Resume, Resumed};

use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for Resume {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<Resumed, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session)).await?;
        let was_suspended = daemon.sessions.actor(id).await?.resume().await?;
        tracing::info!(session = %id, was_suspended, "session resumed");
        Ok(Resumed {
            session: id.to_string(),
            was_suspended,
        })
    }
}
