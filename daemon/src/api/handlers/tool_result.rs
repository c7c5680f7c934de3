//! `ToolResult`: store one function result; with the last one, stream the continuation.

use omni_proto::{ErrorReply, ToolResult, ToolResultOutcome, ToolResultStored};

use super::stream::on_actor;
use crate::api::convert::answer;
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
        let ToolResult {
            session,
            call_id,
            name,
            response_json,
        } = self;
        let submitted = on_actor(daemon, &session, responder, |actor, events| async move {
            actor
                .tool_result(call_id, name, response_json, events)
                .await
        });
        match submitted.await? {
            (id, ToolOutcome::Stored(calls)) => Ok(ToolResultOutcome::Stored(ToolResultStored {
                session: id.to_string(),
                calls: calls.into_iter().map(Into::into).collect(),
            })),
            (_, ToolOutcome::Answered(done)) => {
                let prices = &daemon.services.live.get().config.prices;
                Ok(ToolResultOutcome::Answered(Box::new(answer(*done, prices))))
            }
        }
    }
}
