//! `Rename` and `Place`: a session's title, and whether it is in the listings, the
//! archive or the trash. Both go through the session's actor.

use omni_proto::{ErrorReply, Place, PlaceChange, Rename, SessionRef, SessionSummary};

use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::actor::{MetaChange, checked_title};

/// Names a session.
impl Handle for Rename {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SessionSummary, ErrorReply> {
        let title = checked_title(&self.title)?;
        let id = daemon.sessions.resolve(session_ref(&self.session)).await?;
        daemon
            .sessions
            .actor(id).await?
            .change_meta(MetaChange::Rename(title))
            .await?;
        tracing::info!(session = %id, "session renamed");
        super::session::summary(daemon, &SessionRef::Id(id.to_string())).await
    }
}

/// Moves a session to or from the archive or the trash.
impl Handle for Place {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SessionSummary, ErrorReply> {
        let Place { session, change } = self;
        let id = daemon.sessions.resolve(session_ref(&session)).await?;
        let meta = match change {
            PlaceChange::Archive => MetaChange::Archive,
            PlaceChange::Unarchive => MetaChange::Unarchive,
            PlaceChange::Delete => MetaChange::Delete,
            PlaceChange::Restore => MetaChange::Restore,
        };
        daemon.sessions.actor(id).await?.change_meta(meta).await?;
        tracing::info!(session = %id, ?change, "session moved");
        super::session::summary(daemon, &SessionRef::Id(id.to_string())).await
    }
}
