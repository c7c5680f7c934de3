//! A session as Omni's export format ([`omni_proto::ExportedSession`]): the stored
//! records become the export, and its content hash says whether an import holds the same
//! conversation. Pure functions; `import.rs` is the way back.

use omni_proto as wire;
use omni_proto::{ExportedMove, ExportedMoveKind, ExportedNode, ExportedSession};
use sha2::{Digest, Sha256};

use crate::model::{MoveKind, MoveRecord, NodeRecord, SessionRecord};
use crate::store::ContentHash;

/// The export of a session: its record, every node and move it counts, where it came from.
pub fn exported(
    record: &SessionRecord,
    nodes: Vec<NodeRecord>,
    moves: Vec<MoveRecord>,
    origin: Option<String>,
) -> ExportedSession {
    ExportedSession {
        format: wire::EXPORT_FORMAT.to_string(),
        version: wire::EXPORT_VERSION,
        id: record.id.to_string(),
        title: record.title.clone(),
        title_set: record.title_set,
        origin,
        model: record.model.clone(),
        fallback: record.fallback.clone(),
        system: record.system.clone(),
        tools_json: record.tools_json.clone(),
        created_at_ms: record.created_at_ms,
        updated_at_ms: record.updated_at_ms,
        head: record.head,
        redo_top: record.redo_top,
        nodes: nodes.into_iter().map(exported_node).collect(),
        moves: moves.into_iter().map(exported_move).collect(),
    }
}

/// One node as the export writes it.
pub fn exported_node(node: NodeRecord) -> ExportedNode {
    ExportedNode {
        id: node.id,
        parent: node.parent,
        role: node.role.into(),
        parts: node.parts.into_iter().map(Into::into).collect(),
        created_at_ms: node.created_at_ms,
        model: node.model.map(Into::into),
    }
}

fn exported_move(mv: MoveRecord) -> ExportedMove {
    let kind = match mv.kind {
        MoveKind::Prompt => ExportedMoveKind::Prompt,
        MoveKind::Answer => ExportedMoveKind::Answer,
        MoveKind::Undo => ExportedMoveKind::Undo,
        MoveKind::Back => ExportedMoveKind::Back,
        MoveKind::Redo => ExportedMoveKind::Redo,
        MoveKind::Checkout => ExportedMoveKind::Checkout,
        MoveKind::ToolResults => ExportedMoveKind::ToolResults,
        MoveKind::DeepRollback => ExportedMoveKind::DeepRollback,
        MoveKind::ClearTurn => ExportedMoveKind::ClearTurn,
        MoveKind::Ignore => ExportedMoveKind::Ignore,
        MoveKind::Retry => ExportedMoveKind::Retry,
        MoveKind::Compact => ExportedMoveKind::Compact,
    };
    ExportedMove {
        seq: mv.seq,
        kind,
        from: mv.from,
        to: mv.to,
        at_ms: mv.at_ms,
        prev_redoable: mv.prev_redoable,
        redoes: mv.redoes,
    }
}

/// What a session's content hash covers: the tree, its moves and head, and the settings
/// that shape its requests; not its id, title or origin, so the same conversation
/// imported again (or exported from here and imported back) is recognised.
#[derive(serde::Serialize)]
struct Content<'a> {
    created_at_ms: u64,
    head: u64,
    redo_top: Option<u64>,
    model: &'a Option<String>,
    fallback: &'a [String],
    system: &'a Option<String>,
    tools_json: &'a Option<String>,
    nodes: &'a [ExportedNode],
    moves: &'a [ExportedMove],
}

/// The sha-256 of a session's content (see [`Content`]).
pub fn content_hash(session: &ExportedSession) -> ContentHash {
    let content = Content {
        created_at_ms: session.created_at_ms,
        head: session.head,
        redo_top: session.redo_top,
        model: &session.model,
        fallback: &session.fallback,
        system: &session.system,
        tools_json: &session.tools_json,
        nodes: &session.nodes,
        moves: &session.moves,
    };
    let mut hasher = Sha256::new();
    // Serializing plain structs and strings cannot fail; an empty hash would only merge
    // two imports that could not be written anyway.
    let bytes = serde_json::to_vec(&content).unwrap_or_default();
    hasher.update(&bytes);
    hasher.finalize().into()
}
