//! `Purge`: a session erased for good: its actor ended, every store tree cleared of it
//! (the record first), its diagnostic records and live log entries removed, and sled's
//! files rewritten without it at the next start (see `store/purge.rs`).

use omni_proto::{ErrorKind, ErrorReply, Reply, SessionRef};
use uuid::Uuid;

use crate::api::convert::{session_ref, store_error};
use crate::api::state::Daemon;

pub async fn handle(daemon: &Daemon, session: &SessionRef) -> Result<Reply, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session))?;
    erase(daemon, id).await
}

/// Erases one session for good (see the module's comment); answers what was erased.
pub async fn erase(daemon: &Daemon, id: Uuid) -> Result<Reply, ErrorReply> {
    let title = match daemon.services.store.session(&id) {
        Ok(record) => record.map(|r| r.title).unwrap_or_default(),
        // A record that cannot be read can still be purged.
        Err(_) => String::new(),
    };
    daemon.sessions.unload_for_purge(&id).await?;
    let purged = daemon
        .services
        .store
        .purge(&id)
        .await
        .map_err(store_error)?
        .ok_or_else(|| {
            ErrorReply::new(ErrorKind::NotFound, format!("session {id} does not exist"))
        })?;
    forget_session_in_search(daemon, &id);
    let records = daemon
        .services
        .diag
        .forget_session(&id.to_string())
        .unwrap_or_else(|error| {
            tracing::warn!(session = %id, %error, "the purged session's diagnostic records could not all be removed");
            0
        });
    tracing::info!(session = %id, nodes = purged.nodes, records, "session purged");
    Ok(Reply::Purged {
        session: id.to_string(),
        title,
        nodes: purged.nodes as u64,
        records,
    })
}

/// The search index's part of a purge. The full-text index, once the daemon has one,
/// removes the session's documents physically here (its `forget_session(id)`: deleted
/// documents merged away, files collected) so that no byte of the session stays in its
/// files either. The daemon has no search index yet, so there is nothing to remove.
fn forget_session_in_search(_daemon: &Daemon, _id: &Uuid) {}
