//! Forwarding a request's events to its client while the request runs on its session's
//! actor: a send, a retry, a function result, a recovery, a compaction.

use std::future::Future;

use omni_proto::{ErrorReply, SessionRef};
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::api::convert::{event, session_ref};
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::config::Prices;
use crate::session::SessionError;
use crate::session::actor::ActorHandle;
use crate::session::outcome::SessionEvent;

/// Resolves `session` and runs `work` on its actor, with a channel for the events it
/// streams, writing each to the client as it arrives; returns the session's id and what
/// `work` returned, once every event is out.
pub async fn on_actor<T, Work>(
    daemon: &Daemon,
    session: &SessionRef,
    responder: &mut Responder<'_>,
    work: impl FnOnce(ActorHandle, mpsc::UnboundedSender<SessionEvent>) -> Work,
) -> Result<(Uuid, T), ErrorReply>
where
    Work: Future<Output = Result<T, SessionError>>,
{
    let id = daemon.sessions.resolve(session_ref(session)).await?;
    let actor = daemon.sessions.actor(id).await?;
    let (events, incoming) = mpsc::unbounded_channel();
    let live = daemon.services.live.get();
    let done = with_events(
        responder,
        &live.config.prices,
        incoming,
        work(actor, events),
    )
    .await?;
    Ok((id, done))
}

/// Runs `work`, which sends session events into the channel whose receiver is `incoming`,
/// writing each to the client (as a wire event) as it arrives; returns `work`'s result once every event is out.
async fn with_events<T>(
    responder: &mut Responder<'_>,
    prices: &Prices,
    mut incoming: mpsc::UnboundedReceiver<SessionEvent>,
    work: impl Future<Output = T>,
) -> T {
    tokio::pin!(work);
    let result = loop {
        tokio::select! {
            biased;
            Some(received) = incoming.recv() => responder.event(event(received, prices)).await,
            result = &mut work => break result,
        }
    };
    while let Ok(received) = incoming.try_recv() {
        responder.event(event(received, prices)).await;
    }
    result
}
