//! `ListErrors`, `ExportLogs`, `LogPath`: reading the diagnostic records back.

use std::path::PathBuf;

use omni_proto::{ErrorKind, ErrorReply, Reply, SessionRef};

use super::sessions::load;
use crate::errors::reply;
use crate::session::views;
use crate::state::Daemon;

pub fn list(daemon: &Daemon, session: Option<&SessionRef>) -> Result<Reply, ErrorReply> {
    let session = session
        .map(|s| daemon.sessions.resolve(s))
        .transpose()?
        .map(|id| id.to_string());
    let diag = &daemon.sessions.context().diag;
    Ok(Reply::Errors(diag.list(session.as_deref())))
}

pub fn path(daemon: &Daemon) -> Reply {
    let path = daemon.sessions.context().diag.log_path();
    Reply::LogPath {
        path: path.display().to_string(),
    }
}

pub async fn export(
    daemon: &Daemon,
    session: Option<&SessionRef>,
    error: Option<&str>,
    output: Option<&str>,
) -> Result<Reply, ErrorReply> {
    let diag = daemon.sessions.context().diag.clone();
    // Which records, and which session's transcript.
    let (session, records) = match error {
        Some(id) => {
            let record = diag.find(id).map_err(|m| reply(ErrorKind::NotFound, m))?;
            (SessionRef::Id(record.session.clone()), vec![record])
        }
        None => {
            let session = session.cloned().unwrap_or(SessionRef::Current);
            let id = daemon.sessions.resolve(&session)?.to_string();
            let records = diag.records(Some(&id));
            (SessionRef::Id(id), records)
        }
    };
    let transcript = load(daemon, &session)
        .ok()
        .map(|(record, tree, nodes)| views::history(&record, &tree, nodes, false));
    let session_id = match &session {
        SessionRef::Id(id) => Some(id.clone()),
        SessionRef::Current => None,
    };
    let path = match output {
        Some(path) => PathBuf::from(path),
        None => {
            let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                .to_string()
                .replace(['-', ':'], "");
            let short: String = session_id
                .clone()
                .unwrap_or_default()
                .chars()
                .take(8)
                .collect();
            diag.default_export_path(&format!("omni-bundle-{short}-{stamp}"))
        }
    };
    if path.is_relative() {
        return Err(reply(
            ErrorKind::InvalidRequest,
            format!("the bundle path {} must be absolute", path.display()),
        ));
    }
    let target = path.clone();
    let written =
        tokio::task::spawn_blocking(move || diag.export(session_id, records, transcript, &target))
            .await
            .map_err(|e| reply(ErrorKind::Internal, format!("the export failed: {e}")))?;
    let errors = written.map_err(|e| {
        reply(
            ErrorKind::Internal,
            format!("omnid cannot write the bundle to {}: {e}", path.display()),
        )
    })?;
    Ok(Reply::Exported {
        path: path.display().to_string(),
        errors: errors as u32,
    })
}
