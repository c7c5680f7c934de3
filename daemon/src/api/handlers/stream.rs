//! Forwarding a request's events to its client while the request runs.

use std::future::Future;

use tokio::sync::mpsc;

use crate::api::convert::event;
use crate::api::responder::Responder;
use crate::config::Prices;
use crate::session::outcome::SessionEvent;

/// Runs `work`, which sends session events into the channel whose receiver is `incoming`,
/// writing each to the client (as a wire event) as it arrives; returns `work`'s result once every event is out.
pub async fn with_events<T>(
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
