//! `Rename` and `Place`: a session's title, and whether it is in the listings, the
//! archive or the trash. Both go through the session's actor.

use omni_proto::{ErrorReply, PlaceChange, Reply, SessionRef};

use crate::api::convert::session_ref;
use crate::api::state::Daemon;
use crate::session::actor::{MetaChange, checked_title};

/// Names a session.
pub async fn rename(
    daemon: &Daemon,
    session: &SessionRef,
    title: &str,
) -> Result<Reply, ErrorReply> {
    let title = checked_title(title)?;
    let id = daemon.sessions.resolve(session_ref(session))?;
    daemon
        .sessions
        .actor(id)?
        .change_meta(MetaChange::Rename(title))
        .await?;
    tracing::info!(session = %id, "session renamed");
    super::session::handle(daemon, &SessionRef::Id(id.to_string()))
}

/// Moves a session to or from the archive or the trash.
pub async fn place(
    daemon: &Daemon,
    session: &SessionRef,
    change: PlaceChange,
) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    let meta = match change {
        PlaceChange::Archive => MetaChange::Archive,
        PlaceChange::Unarchive => MetaChange::Unarchive,
        PlaceChange::Delete => MetaChange::Delete,
        PlaceChange::Restore => MetaChange::Restore,
    };
    daemon.sessions.actor(id)?.change_meta(meta).await?;
    tracing::info!(session = %id, ?change, "session moved");
    super::session::handle(daemon, &SessionRef::Id(id.to_string()))
}
