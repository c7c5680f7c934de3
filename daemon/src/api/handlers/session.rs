//! `Session`: one session's summary and state (suspension, recovery, pending calls).

use omni_proto::{ErrorReply, SessionRef, SessionSummary, ShowSession};

use super::sessions::{can_redo, context, head_node, record, recovery_choices};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;

impl Handle for ShowSession {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SessionSummary, ErrorReply> {
        summary(daemon, &self.session).await
    }
}

/// The session's summary as `Session` (and the requests that change one) answer it.
pub async fn summary(daemon: &Daemon, session: &SessionRef) -> Result<SessionSummary, ErrorReply> {
    let record = record(daemon, session).await?;
    let current = daemon.services.current.get() == Some(record.id);
    let head = head_node(daemon, &record).await?;
    let damaged = daemon.sessions.damaged().get(&record.id);
    let choices = recovery_choices(daemon, &record).await;
    let mut summary = views::summary(
        &record,
        current,
        head.as_ref(),
        damaged,
        choices,
        daemon.services.store.origin(&record.id).await,
        &daemon.services.live.get().config,
    );
    summary.context = context(daemon, &record).await;
    summary.can_redo = can_redo(daemon, &record).await;
    Ok(summary)
}
