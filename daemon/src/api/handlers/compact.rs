//! `Compact`: summarise the context up to its latest rounds; the summary request's
//! progress streams as events.

use omni_proto::{Compact, Compacted, ErrorReply};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views::context::compacted;

/// The largest `keep` a client may ask for (a round is a prompt and its answer).
pub const MAX_KEEP: u32 = 10_000;

impl Handle for Compact {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Compacted, ErrorReply> {
        let Compact {
            session,
            keep,
            instructions,
        } = self;
        if keep.is_some_and(|keep| keep > MAX_KEEP) {
            return Err(ErrorReply::new(
                omni_proto::ErrorKind::InvalidRequest,
                format!("--keep is at most {MAX_KEEP} rounds"),
            ));
        }
        let instructions = instructions.filter(|text| !text.trim().is_empty());
        let id = daemon.sessions.resolve(session_ref(&session))?;
        let actor = daemon.sessions.actor(id)?;
        let (events, incoming) = mpsc::unbounded_channel();
        let prices = &daemon.services.live.get().config.prices;
        let done = with_events(
            responder,
            prices,
            incoming,
            actor.compact(keep, instructions, events),
        )
        .await?;
        Ok(compacted(done))
    }
}
