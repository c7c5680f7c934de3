//! `SetModel`: the session asks another model from its next send on.

use omni_proto::{ErrorReply, Reply, SessionRef};

use super::new_session::canonical_model;
use crate::api::convert::session_ref;
use crate::api::state::Daemon;

pub async fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    model: String,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let reference = canonical_model(daemon, &model)?;
    daemon
        .sessions
        .actor(id)?
        .set_model(reference.clone())
        .await?;
    tracing::info!(session = %id, model = %reference, "session model switched");
    super::session::handle(daemon, &SessionRef::Id(id.to_string()))
}
