//! `Export`: a session as Markdown, JSON or JSON lines, read straight from the store and
//! sent in pieces (so a session bigger than a frame exports whole); the client writes it.
//! The daemon writes nothing, anywhere.

use omni_proto::{
    ErrorKind, ErrorReply, Event, Export, ExportFormat, Exported, ExportedSession,
    ExportedSessionLine,
};

use super::sessions::{Loaded, load};
use crate::api::convert::store_error;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;
use crate::api::views::export::exported;
use crate::model::{MoveRecord, NodeRecord, SessionRecord};
use crate::session::tree::Tree;

/// The size of each piece an export travels in (well under the frame limit).
const PIECE: usize = 1024 * 1024;

impl Handle for Export {
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Exported, ErrorReply> {
        let Export {
            session,
            format,
            all,
        } = self;
        let (record, tree, nodes) = match load(daemon, &session).await? {
            Loaded::Whole {
                record,
                tree,
                nodes,
            } => (record, tree, nodes),
            Loaded::Damaged { id, reason, .. } => {
                return Err(ErrorReply::new(
                    ErrorKind::Damaged,
                    format!(
                        "session {id} is damaged ({reason}); `omnictl history` shows it as stored"
                    ),
                ));
            }
        };
        let store = &daemon.services.store;
        let mut moves = store.moves(&record.id).await.map_err(store_error)?;
        moves.truncate(record.moves as usize);
        let origin = store.origin(&record.id).await;
        let session = record.id.to_string();
        let name = file_name(&record, format);
        let bytes = tokio::task::spawn_blocking(move || {
            render(format, all, &record, &tree, nodes, moves, origin)
        })
        .await
        .map_err(|e| ErrorReply::new(ErrorKind::Internal, format!("the export failed: {e}")))??;
        for piece in bytes.chunks(PIECE) {
            responder.event(Event::ExportData(piece.to_vec())).await;
        }
        Ok(Exported {
            session,
            name,
            bytes: bytes.len() as u64,
        })
    }
}

/// `omni-<title words>-<short id>.<ext>`.
fn file_name(record: &SessionRecord, format: ExportFormat) -> String {
    let mut slug = String::new();
    for c in record.title.chars().flat_map(char::to_lowercase) {
        if slug.len() >= 40 {
            break;
        }
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let short: String = record.id.to_string().chars().take(8).collect();
    match slug.is_empty() {
        true => format!("omni-{short}.{}", format.name()),
        false => format!("omni-{slug}-{short}.{}", format.name()),
    }
}

fn render(
    format: ExportFormat,
    all: bool,
    record: &SessionRecord,
    tree: &Tree,
    nodes: Vec<NodeRecord>,
    moves: Vec<MoveRecord>,
    origin: Option<String>,
) -> Result<Vec<u8>, ErrorReply> {
    let failed = |e: serde_json::Error| {
        ErrorReply::new(ErrorKind::Internal, format!("the export failed: {e}"))
    };
    match format {
        ExportFormat::Markdown => {
            let unpriced = crate::config::Prices::default();
            let unmeasured = views::context::unmeasured();
            let history = views::history(record, tree, nodes, &moves, !all, &unpriced, unmeasured);
            Ok(views::markdown::markdown(record, origin.as_deref(), &history).into_bytes())
        }
        ExportFormat::Json => {
            let mut bytes = serde_json::to_vec_pretty(&exported(record, nodes, moves, origin))
                .map_err(failed)?;
            bytes.push(b'\n');
            Ok(bytes)
        }
        ExportFormat::Jsonl => {
            let whole = exported(record, nodes, moves, origin);
            jsonl(whole).map_err(failed)
        }
    }
}

/// The session (without nodes) on the first line, then one node per line.
fn jsonl(mut whole: ExportedSession) -> Result<Vec<u8>, serde_json::Error> {
    let nodes = std::mem::take(&mut whole.nodes);
    let first = ExportedSessionLine {
        kind: "session".into(),
        session: whole,
    };
    let mut bytes = serde_json::to_vec(&first)?;
    bytes.push(b'\n');
    for node in &nodes {
        serde_json::to_writer(&mut bytes, node)?;
        bytes.push(b'\n');
    }
    Ok(bytes)
}
