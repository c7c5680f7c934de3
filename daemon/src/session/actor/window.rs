//! The session against its model's window: how full its context is at a node, and what
//! happens to a send over the window by the estimate (it is not sent; the session needs
//! recovery, and the menu offers compaction first).

use super::Actor;
use super::recovery::Unsent;
use crate::diag::Cause;
use crate::services::{Endpoint, Live};
use crate::session::SessionError;
use crate::session::gauge::{Gauge, gauge_of};
use crate::session::tree::NodeId;

impl Actor {
    /// How full the context whose last node is `node` is (see [`gauge_of`]), walking no
    /// further up than the node measured last.
    pub(super) async fn gauge_at(&mut self, node: NodeId, live: &Live) -> Gauge {
        let gauge = gauge_of(&self.ctx, live, &self.record, node, self.measured).await;
        self.measured = Some((node, gauge.size));
        gauge
    }

    /// Learns the window of the model a send asks, in the background, when its API can
    /// say it (Gemini): the gauge of the next answer knows it. Never holds up the send.
    pub(super) fn learn_window(&self, endpoint: &Endpoint) {
        let (services, endpoint) = (self.ctx.clone(), endpoint.clone());
        self.ctx.tracker.spawn(async move {
            let shutdown = services.shutdown.clone();
            tokio::select! {
                () = services.windows.learn(&endpoint) => {}
                () = shutdown.cancelled() => {}
            }
        });
    }

    /// A context over its window by the estimate: recorded (with the request it would have
    /// sent), and the session needs recovery.
    pub(super) async fn refuse_over_window(
        &mut self,
        turn: NodeId,
        gauge: &Gauge,
        request: (String, Vec<(String, String)>),
        request_body: String,
        live: &Live,
    ) -> SessionError {
        let window = gauge.window.map_or(0, |w| w.tokens);
        let unsent = Unsent {
            turn,
            cause: Cause::Window,
            message: format!(
                "the context holds about {} tokens (estimated), over {}'s window of {window} \
                 tokens; nothing was sent. `omnictl recover --compact` summarises the older \
                 turns and sends again",
                gauge.size.tokens, gauge.model
            ),
            request,
            body: request_body,
        };
        self.refuse_unsent(unsent, None, live).await
    }
}
