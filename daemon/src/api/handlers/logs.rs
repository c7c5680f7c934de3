//! `ListErrors`, `ExportLogs`, `LogPath`: reading the diagnostic records back.

use omni_proto::{
    Bundle, ErrorKind, ErrorList, ErrorReply, Event, ExportLogs, ListErrors, LogFile, LogPath,
    SessionRef,
};

use super::sessions::load;
use crate::api::convert::session_ref;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;

/// The size of each piece a bundle travels in (well under the frame limit).
const PIECE: usize = 1024 * 1024;

impl Handle for ListErrors {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<ErrorList, ErrorReply> {
        let session = match &self.session {
            Some(session) => Some(daemon.sessions.resolve(session_ref(session)).await?),
            None => None,
        }
        .map(|id| id.to_string());
        let diag = &daemon.services.diag;
        let summaries = diag
            .records(session.as_deref())
            .await
            .into_iter()
            .map(views::diag::error_summary)
            .collect();
        Ok(ErrorList { errors: summaries })
    }
}

impl Handle for LogPath {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<LogFile, ErrorReply> {
        let path = daemon.services.diag.log_path();
        Ok(LogFile {
            path: path.display().to_string(),
        })
    }
}

/// Builds the bundle and sends it to the client in pieces; the client writes it. The
/// daemon writes nothing, anywhere.
impl Handle for ExportLogs {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Bundle, ErrorReply> {
        export(daemon, self, responder).await
    }
}

async fn export(
    daemon: &Daemon,
    ExportLogs { session, error }: ExportLogs,
    responder: &mut Responder<'_>,
) -> Result<Bundle, ErrorReply> {
    let diag = daemon.services.diag.clone();
    let policy = daemon.services.live.get().diag.clone();
    // Which records, and which session's transcript.
    let (session_id, records) = match error.as_deref() {
        Some(id) => {
            let record = diag
                .find(id)
                .await
                .map_err(|m| ErrorReply::new(ErrorKind::NotFound, m))?;
            (record.session.clone(), vec![record])
        }
        None => {
            let session = session.unwrap_or(SessionRef::Current);
            let id = daemon.sessions.resolve(session_ref(&session)).await?.to_string();
            let records = diag.records(Some(&id)).await;
            (id, records)
        }
    };
    let transcript = match load(daemon, &SessionRef::Id(session_id.clone())).await {
        Ok(loaded) => loaded.history(daemon, false).await.ok(),
        Err(_) => None,
    }
    .and_then(|view| serde_json::to_value(view).ok());
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(['-', ':'], "");
    let short: String = session_id.chars().take(8).collect();
    let name = format!("omni-bundle-{short}-{stamp}.json");
    let ids = records.iter().map(|r| r.id.clone()).collect();
    let entries = diag.log_entries(ids).await;
    let built = tokio::task::spawn_blocking(move || {
        diag.bundle(Some(session_id), records, entries, transcript, &policy)
    })
    .await
    .map_err(|e| ErrorReply::new(ErrorKind::Internal, format!("the export failed: {e}")))?;
    let (bytes, errors) = built.map_err(|e| {
        ErrorReply::new(
            ErrorKind::Internal,
            format!("omnid cannot assemble the bundle: {e}"),
        )
    })?;
    for piece in bytes.chunks(PIECE) {
        responder.event(Event::BundleData(piece.to_vec())).await;
    }
    Ok(Bundle {
        name,
        errors: errors as u32,
        bytes: bytes.len() as u64,
    })
}
