//! `Cancel`: stop a session's answer in flight; the partial answer is kept out of the
//! context.

use omni_proto::{ErrorReply, Reply, SessionRef};

use crate::api::convert::session_ref;
use crate::api::state::Daemon;

pub async fn handle(daemon: &Daemon, session: &SessionRef) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let cancelled = daemon.sessions.actor(id)?.cancel().await?;
    tracing::info!(session = %id, turn = cancelled.turn, kept = ?cancelled.kept, "answer cancelled");
    Ok(Reply::Cancelled {
        session: cancelled.session.to_string(),
        turn: cancelled.turn,
        kept: cancelled.kept,
    })
}
