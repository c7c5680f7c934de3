//! `Resume`: lift a session's suspension after repeated failed sends.

use omni_proto::{ErrorReply, Reply, SessionRef};

use crate::api::convert::session_ref;
use crate::api::state::Daemon;

pub async fn handle(daemon: &Daemon, session: &SessionRef) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let was_suspended = daemon.sessions.actor(id)?.resume().await?;
    tracing::info!(session = %id, was_suspended, "session resumed");
    Ok(Reply::Resumed {
        session: id.to_string(),
        was_suspended,
    })
}
