//! `Send`: store the prompt, stream the answer to the client, store the answer. `Retry`:
//! the same for the prompt already pending at the head.

use omni_proto::{ErrorReply, Reply, SessionRef};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

/// A prompt to send, and whether it replaces a pending one.
pub struct NewPrompt {
    /// The prompt.
    pub text: String,
    /// Send it in place of a pending prompt rather than with it.
    pub replace: bool,
}

/// `prompt` is `None` for a retry of the pending one.
pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    prompt: Option<NewPrompt>,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let actor = daemon.sessions.actor(id)?;
    let (events, incoming) = mpsc::unbounded_channel();
    let answer = match prompt {
        Some(prompt) => {
            let sent = actor.send(prompt.text, prompt.replace, events);
            with_events(
                responder,
                &daemon.services.live.get().config.prices,
                incoming,
                sent,
            )
            .await?
        }
        None => {
            with_events(
                responder,
                &daemon.services.live.get().config.prices,
                incoming,
                actor.retry(events),
            )
            .await?
        }
    };
    Ok(Reply::Answered(crate::api::convert::answer(
        answer,
        &daemon.services.live.get().config.prices,
    )))
}
