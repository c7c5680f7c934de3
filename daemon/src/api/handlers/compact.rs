//! `Compact`: summarise the context up to its latest rounds; the summary request's
//! progress streams as events.

use omni_proto::{ErrorReply, Reply, SessionRef};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views::context::compacted;

/// The largest `keep` a client may ask for (a round is a prompt and its answer).
pub const MAX_KEEP: u32 = 10_000;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    keep: Option<u32>,
    instructions: Option<String>,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    if keep.is_some_and(|keep| keep > MAX_KEEP) {
        return Err(ErrorReply::new(
            omni_proto::ErrorKind::InvalidRequest,
            format!("--keep is at most {MAX_KEEP} rounds"),
        ));
    }
    let instructions = instructions.filter(|text| !text.trim().is_empty());
    let id = daemon.sessions.resolve(session_ref(session))?;
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
    Ok(Reply::Compacted(Box::new(compacted(done))))
}
