//! `Recover`: apply one way out of *needs recovery*; `--retry` streams its answer.

use omni_proto::{ErrorReply, Recover, RecoverOutcome};

use super::stream::on_actor;
use crate::api::convert::answer;
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
        let action = self.action.into();
        let recovered = on_actor(
            daemon,
            &self.session,
            responder,
            |actor, events| async move { actor.recover(action, events).await },
        );
        match recovered.await? {
            (_, Outcome::Moved(recovered)) => Ok(RecoverOutcome::Recovered(recovered.into())),
            (_, Outcome::Answered(done)) => {
                let prices = &daemon.services.live.get().config.prices;
                Ok(RecoverOutcome::Answered(Box::new(answer(*done, prices))))
            }
        }
    }
}
