//! `Attach`: follow a session. The client gets the session's state, what the answer in
//! flight (if any) has streamed so far, then every event of every request on it and each
//! change once stored, until it leaves or the daemon stops.

use omni_proto::{Attach, Detached, ErrorKind, ErrorReply, Event, SessionRef};
use tokio::sync::broadcast::error::RecvError;

use super::session;
use crate::api::convert::{self, session_ref};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::SessionError;

impl Handle for Attach {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Detached, ErrorReply> {
        follow(daemon, &self.session, responder).await
    }
}

/// Follows the session until the client leaves or the daemon stops; it never ends in a
/// reply.
async fn follow(
    daemon: &Daemon,
    session: &SessionRef,
    responder: &mut Responder<'_>,
) -> Result<Detached, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session)).await?;
    // Subscribe before reading the state, so nothing falls between the two.
    let following = daemon.sessions.actor(id).await?.watch().await?;
    let mut watching = following.events;
    let full_id = SessionRef::Id(id.to_string());
    let summary = session::summary(daemon, &full_id).await?;
    responder.event(Event::Attached(summary)).await;
    // The answer streaming now, from its start, as those who followed all along saw it.
    for event in following.so_far {
        let prices = &daemon.services.live.get().config.prices;
        responder.event(convert::event(event, prices)).await;
    }
    let shutdown = daemon.services.shutdown.clone();
    loop {
        let received = tokio::select! {
            _ = responder.closed() => break,
            _ = shutdown.cancelled() => return Err(SessionError::shutting_down().into()),
            received = watching.recv() => received,
        };
        match received {
            Ok(event) => {
                let prices = &daemon.services.live.get().config.prices;
                responder.event(convert::event(event, prices)).await
            }
            Err(RecvError::Lagged(missed)) => {
                responder.event(Event::Missed { events: missed }).await
            }
            // The actor ended (a store failure retired it): follow its successor.
            Err(RecvError::Closed) => watching = daemon.sessions.actor(id).await?.watch().await?.events,
        }
        if responder.client_gone() {
            break;
        }
    }
    Err(ErrorReply::new(
        ErrorKind::InvalidRequest,
        "the client stopped following the session",
    ))
}
