//! `Send`: store the prompt, stream the answer to the client, store the answer. `Retry`:
//! the same for the prompt already pending at the head.

use omni_proto::{Answer, ErrorReply, Retry, SendPrompt};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for SendPrompt {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Answer, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session))?;
        let actor = daemon.sessions.actor(id)?;
        let (events, incoming) = mpsc::unbounded_channel();
        let sent = actor.send(self.prompt, self.replace, events);
        let live = daemon.services.live.get();
        let prices = &live.config.prices;
        let answer = with_events(responder, prices, incoming, sent).await?;
        Ok(crate::api::convert::answer(answer, prices))
    }
}

impl Handle for Retry {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Answer, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session))?;
        let actor = daemon.sessions.actor(id)?;
        let (events, incoming) = mpsc::unbounded_channel();
        let live = daemon.services.live.get();
        let prices = &live.config.prices;
        let answer = with_events(responder, prices, incoming, actor.retry(events)).await?;
        Ok(crate::api::convert::answer(answer, prices))
    }
}
