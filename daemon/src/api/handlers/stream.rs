//! Forwarding a request's events to its client while the request runs.

use std::future::Future;

use tokio::sync::mpsc;

use crate::api::responder::Responder;
use crate::session::outcome::SessionEvent;

/// Runs `work`, which sends session events into the channel whose receiver is `incoming`,
/// writing each to the client (as a wire event) as it arrives; returns `work`'s result once every event is out.
pub async fn with_events<T>(
    responder: &mut Responder<'_>,
    mut incoming: mpsc::UnboundedReceiver<SessionEvent>,
    work: impl Future<Output = T>,
) -> T {
    tokio::pin!(work);
    let result = loop {
        tokio::select! {
            biased;
            Some(event) = incoming.recv() => responder.event(event.into()).await,
            result = &mut work => break result,
        }
    };
    while let Ok(event) = incoming.try_recv() {
        responder.event(event.into()).await;
    }
    result
}
