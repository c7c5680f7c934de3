//! `Send`: store the prompt, stream the answer to the client, store the answer. `Retry`:
//! the same for the prompt already pending at the head.

use omni_proto::{Answer, ErrorReply, Retry, SendPrompt};

use super::stream::on_actor;
use crate::api::convert::answer;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for SendPrompt {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Answer, ErrorReply> {
        let SendPrompt {
            session,
            prompt,
            replace,
        } = self;
        let (_, done) = on_actor(daemon, &session, responder, |actor, events| async move {
            actor.send(prompt, replace, events).await
        })
        .await?;
        Ok(answer(done, &daemon.services.live.get().config.prices))
    }
}

impl Handle for Retry {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Answer, ErrorReply> {
        let (_, done) = on_actor(
            daemon,
            &self.session,
            responder,
            |actor, events| async move { actor.retry(events).await },
        )
        .await?;
        Ok(answer(done, &daemon.services.live.get().config.prices))
    }
}
