//! `Recover`: apply one way out of *needs recovery*; `--retry` streams its answer.

use omni_proto::{ErrorReply, Recover, RecoverOutcome};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::actor::RecoverOutcome as Outcome;

impl Handle for Recover {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<RecoverOutcome, ErrorReply> {
        let Recover { session, action } = self;
        let id = daemon.sessions.resolve(session_ref(&session))?;
        let actor = daemon.sessions.actor(id)?;
        let (events, incoming) = mpsc::unbounded_channel();
        let live = daemon.services.live.get();
        let prices = &live.config.prices;
        let work = actor.recover(action.into(), events);
        match with_events(responder, prices, incoming, work).await? {
            Outcome::Moved(recovered) => Ok(RecoverOutcome::Recovered(recovered.into())),
            Outcome::Answered(answer) => Ok(RecoverOutcome::Answered(Box::new(
                crate::api::convert::answer(*answer, prices),
            ))),
        }
    }
}
