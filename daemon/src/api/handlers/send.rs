//! `Send`: store the prompt, stream the answer to the client, store the answer. `Retry`:
//! the same for the prompt already pending at the head.

use omni_proto::{ErrorReply, Reply, SessionRef};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

/// `prompt` is `None` for a retry of the pending one.
pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    prompt: Option<String>,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let actor = daemon.sessions.actor(id)?;
    let (events, incoming) = mpsc::unbounded_channel();
    let answer = match prompt {
        Some(prompt) => with_events(responder, incoming, actor.send(prompt, events)).await?,
        None => with_events(responder, incoming, actor.retry(events)).await?,
    };
    Ok(Reply::Answered(answer.into()))
}
