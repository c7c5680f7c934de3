//! `ImportPart` and `Import`: a session in Omni's export format (Omni's own, or what
//! omnictl's readers made of another tool's file) written as a new session in one ordered
//! store change. The same content imported again adds nothing (its content hash is kept
//! in the store); an export imported here keeps its id unless a different session holds it.

use omni_proto::{
    ErrorKind, ErrorReply, ExportedSession, Import as ImportRequest, ImportOutcome, ImportPart,
    ImportStaged,
};
use uuid::Uuid;

use crate::api::convert::store_error;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views::export::{content_hash, exported};
use crate::api::views::import::records;
use crate::model::SessionRecord;
use crate::session::{build_tree, places};
use crate::store::{ContentHash, Import};

/// The tools an import may name as its source.
const TOOLS: [&str; 4] = ["omni", "claude-code", "gemini-cli", "codex"];

/// The longest file name an origin keeps.
const MAX_FILE_NAME: usize = 1024;

fn invalid(message: impl Into<String>) -> ErrorReply {
    ErrorReply::new(ErrorKind::InvalidRequest, message)
}

impl Handle for ImportPart {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<ImportStaged, ErrorReply> {
        let bytes = daemon.uploads.stage(&self.upload, &self.data)?;
        Ok(ImportStaged {
            upload: self.upload,
            bytes,
        })
    }
}

impl Handle for ImportRequest {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<ImportOutcome, ErrorReply> {
        import(daemon, self).await
    }
}

async fn import(daemon: &Daemon, asked: ImportRequest) -> Result<ImportOutcome, ErrorReply> {
    let ImportRequest {
        upload,
        data,
        tool,
        file,
    } = asked;
    let source = Source { tool, file };
    let bytes = match upload {
        Some(name) => daemon.uploads.take(&name, &data)?,
        None => data,
    };
    let origin = origin(&source)?;
    let session: ExportedSession = serde_json::from_slice(&bytes)
        .map_err(|e| invalid(format!("{}: not an Omni session: {e}", source.file)))?;
    drop(bytes);
    let hash = content_hash(&session);
    let _one_at_a_time = daemon.uploads.importing.lock().await;
    if let Some(record) = already_imported(daemon, &session, &hash).await? {
        return Ok(outcome(&record, false, false));
    }
    let (id, new_id) = free_id(daemon, &session).await?;
    let (record, nodes, moves) = records(&session, id, crate::text::title_of)
        .map_err(|why| invalid(format!("{}: {why}", source.file)))?;
    // The tree a load would build: what cannot load is refused before it is stored.
    build_tree(&record, places(&nodes))
        .map_err(|why| invalid(format!("{}: the tree does not hold: {why}", source.file)))?;
    let import = Import {
        session: &record,
        nodes: &nodes,
        moves: &moves,
        origin: Some(&origin),
        hash: Some(hash),
        chains: &[],
    };
    daemon
        .services
        .store
        .import(&import)
        .await
        .map_err(store_error)?;
    Ok(outcome(&record, true, new_id))
}

fn origin(source: &Source) -> Result<String, ErrorReply> {
    if !TOOLS.contains(&source.tool.as_str()) {
        return Err(invalid(format!(
            "unknown source tool {:?}; one of {}",
            source.tool,
            TOOLS.join(", ")
        )));
    }
    let file: String = source
        .file
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_FILE_NAME)
        .collect();
    Ok(format!("import ({}: {file})", source.tool))
}

/// The session already holding this content: one an earlier import made, or the very
/// session the export came from (same id, same content).
async fn already_imported(
    daemon: &Daemon,
    session: &ExportedSession,
    hash: &ContentHash,
) -> Result<Option<SessionRecord>, ErrorReply> {
    let store = &daemon.services.store;
    if let Some(id) = store.imported(hash).await.map_err(store_error)? {
        if let Some(record) = store.session(&id).await.map_err(store_error)? {
            return Ok(Some(record));
        }
    }
    let Ok(id) = Uuid::parse_str(&session.id) else {
        return Ok(None);
    };
    let Some(record) = store.session(&id).await.map_err(store_error)? else {
        return Ok(None);
    };
    let mut nodes = store.nodes(&id).await.map_err(store_error)?;
    nodes.truncate(record.nodes as usize);
    let mut moves = store.moves(&id).await.map_err(store_error)?;
    moves.truncate(record.moves as usize);
    let here = exported(&record, nodes, moves, None);
    Ok((content_hash(&here) == *hash).then_some(record))
}

/// The export's own id when it is a UUID no session holds; else a new one (and whether
/// the export's id was taken).
async fn free_id(daemon: &Daemon, session: &ExportedSession) -> Result<(Uuid, bool), ErrorReply> {
    let Ok(id) = Uuid::parse_str(&session.id) else {
        return Ok((Uuid::new_v4(), false));
    };
    match daemon.services.store.session(&id).await {
        Ok(None) => Ok((id, false)),
        Ok(Some(_)) | Err(_) => Ok((Uuid::new_v4(), true)),
    }
}

/// What the session's source and file say of it, checked.
struct Source {
    tool: String,
    file: String,
}

fn outcome(record: &SessionRecord, added: bool, new_id: bool) -> ImportOutcome {
    ImportOutcome {
        session: record.id.to_string(),
        title: record.title.clone(),
        nodes: record.nodes,
        added,
        new_id,
    }
}
