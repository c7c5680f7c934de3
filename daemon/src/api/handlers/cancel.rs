//! `Cancel`: stop a session's answer in flight; the partial answer is kept out of the
//! context.

use omni_proto::{Cancel, Cancelled, ErrorReply};

use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for Cancel {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<Cancelled, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session)).await?;
        let cancelled = daemon.sessions.actor(id).await?.cancel().await?;
        tracing::info!(session = %id, turn = cancelled.turn, kept = ?cancelled.kept, "answer cancelled");
        Ok(Cancelled {
            session: cancelled.session.to_string(),
            turn: cancelled.turn,
            kept: cancelled.kept,
        })
    }
}
