//! `SetModel`: the session asks another model from its next send on.

use omni_proto::{ErrorReply, SessionRef, SessionSummary, SetModel};

use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for SetModel {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SessionSummary, ErrorReply> {
        let SetModel { session, model } = self;
        let id = daemon.sessions.resolve(session_ref(&session)).await?;
        daemon.sessions.actor(id).await?.set_model(model.clone()).await?;
        tracing::info!(session = %id, %model, "session model switched");
        super::session::summary(daemon, &SessionRef::Id(id.to_string())).await
    }
}
