//! `Move`: undo, redo, back, checkout — each an append to the session's move log.

use omni_proto::{ErrorReply, MoveOp, Reply, SessionRef};

use crate::api::convert::session_ref;
use crate::api::state::Daemon;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    op: MoveOp,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let outcome = daemon.sessions.actor(id)?.apply_move(op.into()).await?;
    tracing::info!(session = %id, ?op, from = outcome.from, to = outcome.to, "head moved");
    Ok(Reply::Moved(outcome.into()))
}
