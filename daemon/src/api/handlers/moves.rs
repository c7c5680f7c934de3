//! `Move`: undo, redo, back, checkout — each an append to the session's move log.

use omni_proto::{ErrorReply, Move, MoveOutcome};

use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for Move {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<MoveOutcome, ErrorReply> {
        let Move { session, op } = self;
        let id = daemon.sessions.resolve(session_ref(&session)).await?;
        let outcome = daemon.sessions.actor(id).await?.apply_move(op.into()).await?;
        tracing::info!(session = %id, ?op, from = outcome.from, to = outcome.to, "head moved");
        Ok(outcome.into())
    }
}
