//! `Send`: store the prompt, stream the answer to the client, store the answer.

use omni_proto::{ErrorReply, Reply, SessionRef};
use tokio::sync::mpsc;

use crate::server::connection::Responder;
use crate::state::Daemon;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    prompt: String,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session)?;
    let actor = daemon.sessions.actor(id)?;
    let (events, mut incoming) = mpsc::unbounded_channel();
    let answer = actor.send(prompt, events);
    tokio::pin!(answer);
    // Forward events until the actor has answered and every event is out.
    let result = loop {
        tokio::select! {
            biased;
            Some(event) = incoming.recv() => responder.event(event).await,
            result = &mut answer => break result,
        }
    };
    while let Ok(event) = incoming.try_recv() {
        responder.event(event).await;
    }
    result.map(Reply::Answered)
}
