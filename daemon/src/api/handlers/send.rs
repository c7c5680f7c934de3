//! `Send`: store the prompt, stream the answer to the client, store the answer.

use omni_proto::{ErrorReply, Reply, SessionRef};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    prompt: String,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let actor = daemon.sessions.actor(id)?;
    let (events, incoming) = mpsc::unbounded_channel();
    let answer = with_events(responder, incoming, actor.send(prompt, events)).await?;
    Ok(Reply::Answered(answer.into()))
}
