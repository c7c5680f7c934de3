//! `ToolResult`: store one function result; with the last one, stream the continuation.

use omni_proto::{ErrorReply, Reply, SessionRef};
use tokio::sync::mpsc;

use super::stream::with_events;
use crate::api::convert::session_ref;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::actor::ToolOutcome;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    call_id: Option<String>,
    name: String,
    response_json: String,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let actor = daemon.sessions.actor(id)?;
    let (events, incoming) = mpsc::unbounded_channel();
    let work = actor.tool_result(call_id, name, response_json, events);
    match with_events(
        responder,
        &daemon.services.live.get().config.prices,
        incoming,
        work,
    )
    .await?
    {
        ToolOutcome::Stored(calls) => Ok(Reply::ToolResultStored {
            session: id.to_string(),
            calls: calls.into_iter().map(Into::into).collect(),
        }),
        ToolOutcome::Answered(answer) => Ok(Reply::Answered(crate::api::convert::answer(
            *answer,
            &daemon.services.live.get().config.prices,
        ))),
    }
}
