//! `SetModel`: the session asks another model from its next send on.

use omni_proto::{ErrorReply, Reply, SessionRef};

use crate::api::convert::session_ref;
use crate::api::state::Daemon;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    model: String,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    daemon.sessions.actor(id)?.set_model(model.clone()).await?;
    tracing::info!(session = %id, %model, "session model switched");
    super::session::handle(daemon, &SessionRef::Id(id.to_string()))
}
