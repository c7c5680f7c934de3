//! `Purge`: a session erased for good: its actor ended, every store tree cleared of it
//! (the record first), its diagnostic records and live log entries removed, and sled's
//! files rewritten without it at the next start (see `store/sled/purge.rs`).

use omni_proto::{ErrorKind, ErrorReply, Purge, Purged};
use uuid::Uuid;

use crate::api::convert::{session_ref, store_error};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for Purge {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<Purged, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session)).await?;
        erase(daemon, id).await
    }
}

/// Erases one session for good (see the module's comment); answers what was erased.
pub async fn erase(daemon: &Daemon, id: Uuid) -> Result<Purged, ErrorReply> {
    let title = match daemon.services.store.session(&id).await {
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
    forget_session_in_search(daemon, id).await;
    let records = forget_diagnostics(daemon, &id);
    finished(daemon, &id).await;
    tracing::info!(session = %id, nodes = purged.nodes, records, "session purged");
    Ok(Purged {
        session: id.to_string(),
        title,
        nodes: purged.nodes as u64,
        records,
    })
}

/// Finishes the purges a crash cut short (their intent was written before anything was
/// removed): the store's rewrite at the start removed their entries; the search index and
/// the diagnostic records lose theirs now. Run at the start, before clients are served.
pub async fn finish_unfinished(daemon: &Daemon) {
    for id in daemon.services.store.unfinished_purges().await {
        if let Err(error) = daemon.services.store.purge(&id).await {
            tracing::warn!(session = %id, %error, "a purge cut short could not be finished in the store");
            continue;
        }
        forget_session_in_search(daemon, id).await;
        let records = forget_diagnostics(daemon, &id);
        finished(daemon, &id).await;
        tracing::info!(session = %id, records, "a purge cut short is finished");
    }
}

/// Its diagnostic records and live log entries go; how many records.
fn forget_diagnostics(daemon: &Daemon, id: &Uuid) -> u64 {
    daemon
        .services
        .diag
        .forget_session(&id.to_string())
        .unwrap_or_else(|error| {
            tracing::warn!(session = %id, %error, "the purged session's diagnostic records could not all be removed");
            0
        })
}

/// Notes the purge finished everywhere; a failure leaves it to be finished again.
async fn finished(daemon: &Daemon, id: &Uuid) {
    if let Err(error) = daemon.services.store.purge_finished(id).await {
        tracing::warn!(session = %id, %error, "cannot note the purge as finished; the next start finishes it again");
    }
}

/// The search index's copy goes too: the session's documents are deleted, the segments
/// merged and the old files removed, so no byte of it stays in the index's files. A
/// failure is logged (the index is rebuilt from the store when it cannot be opened).
async fn forget_session_in_search(daemon: &Daemon, id: Uuid) {
    let Some(search) = daemon.search.clone() else {
        return;
    };
    match tokio::task::spawn_blocking(move || search.forget_session(id)).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            tracing::warn!(session = %id, %error, "the purged session could not be removed from the search index")
        }
        Err(error) => {
            tracing::warn!(session = %id, %error, "removing the purged session from the search index stopped")
        }
    }
}
