//! Forwarding a request's events to its client while the request runs.

use std::future::Future;

use omni_proto::Event;
use tokio::sync::mpsc;

use crate::server::connection::Responder;

/// Runs `work`, which sends events into the channel whose receiver is `incoming`, writing
/// every event to the client as it arrives; returns `work`'s result once every event is out.
pub async fn with_events<T>(
    responder: &mut Responder<'_>,
    mut incoming: mpsc::UnboundedReceiver<Event>,
    work: impl Future<Output = T>,
) -> T {
    tokio::pin!(work);
    let result = loop {
        tokio::select! {
            biased;
            Some(event) = incoming.recv() => responder.event(event).await,
            result = &mut work => break result,
        }
    };
    while let Ok(event) = incoming.try_recv() {
        responder.event(event).await;
    }
    result
}
