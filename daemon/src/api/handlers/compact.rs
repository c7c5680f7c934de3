//! `Compact`: summarise the context up to its latest rounds; the summary request's
//! progress streams as events.

use omni_proto::{Compact, Compacted, ErrorReply};

use super::stream::on_actor;
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
        let (_, done) = on_actor(daemon, &session, responder, |actor, events| async move {
            actor.compact(keep, instructions, events).await
        })
        .await?;
        Ok(compacted(done))
    }
}
