//! `Recover`: apply one way out of *needs recovery*; `--retry` streams its answer.

use omni_proto::{ErrorReply, RecoveryAction, Reply, SessionRef};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::actor::RecoverOutcome;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    action: RecoveryAction,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let actor = daemon.sessions.actor(id)?;
    let (events, incoming) = mpsc::unbounded_channel();
    match with_events(
        responder,
        &daemon.services.live.get().config.prices,
        incoming,
        actor.recover(action.into(), events),
    )
    .await?
    {
        RecoverOutcome::Moved(recovered) => Ok(Reply::Recovered(recovered.into())),
        RecoverOutcome::Answered(answer) => Ok(Reply::Answered(crate::api::convert::answer(
            *answer,
            &daemon.services.live.get().config.prices,
        ))),
    }
}
