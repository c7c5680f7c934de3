//! `ToolResult`: store one function result; with the last one, stream the continuation.

use omni_proto::{ErrorReply, ToolResult, ToolResultOutcome, ToolResultStored};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::actor::ToolOutcome;

impl Handle for ToolResult {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<ToolResultOutcome, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session))?;
        let actor = daemon.sessions.actor(id)?;
        let (events, incoming) = mpsc::unbounded_channel();
        let work = actor.tool_result(self.call_id, self.name, self.response_json, events);
        let live = daemon.services.live.get();
        let prices = &live.config.prices;
        match with_events(responder, prices, incoming, work).await? {
            ToolOutcome::Stored(calls) => Ok(ToolResultOutcome::Stored(ToolResultStored {
                session: id.to_string(),
                calls: calls.into_iter().map(Into::into).collect(),
            })),
            ToolOutcome::Answered(answer) => Ok(ToolResultOutcome::Answered(Box::new(
                crate::api::convert::answer(*answer, prices),
            ))),
        }
    }
}
