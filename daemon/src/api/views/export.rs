//! A session as Omni's export format ([`omni_proto::ExportedSession`]) and back: the
//! stored records become the export, and an export (Omni's own, or what a reader made of
//! another tool's file) becomes the records of a new session. Pure functions.

use omni_proto as wire;
use omni_proto::{ExportedMove, ExportedMoveKind, ExportedNode, ExportedSession};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::model::{
    ModelInfo, MoveKind, MoveRecord, NodeRecord, Part, PartContent, Role, SessionRecord, Usage,
};
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

/// The records of a new session `id` holding an export's tree, or what is wrong with it.
/// Usage is counted for every model node, as a commit would.
pub fn records(
    session: &ExportedSession,
    id: Uuid,
    title_of: impl Fn(&str) -> String,
) -> Result<(SessionRecord, Vec<NodeRecord>, Vec<MoveRecord>), String> {
    check(session)?;
    let nodes: Vec<NodeRecord> = session.nodes.iter().cloned().map(node_record).collect();
    let moves: Vec<MoveRecord> = session.moves.iter().map(move_record).collect();
    let mut record = SessionRecord::new(id, session.created_at_ms);
    record.updated_at_ms = session.updated_at_ms.max(session.created_at_ms);
    record.head = session.head;
    record.nodes = nodes.len() as u64;
    record.moves = moves.len() as u64;
    record.redo_top = session.redo_top;
    record.model = session.model.clone();
    record.fallback = session.fallback.clone();
    record.system = session.system.clone();
    record.tools_json = session.tools_json.clone();
    record.title_set = session.title_set && !session.title.trim().is_empty();
    record.title = if record.title_set {
        session.title.clone()
    } else {
        nodes
            .iter()
            .find(|n| n.role == Role::User && !n.text().trim().is_empty())
            .map(|n| title_of(&n.text()))
            .unwrap_or_default()
    };
    for info in nodes.iter().filter_map(|n| n.model.as_ref()) {
        record.count_usage(info);
    }
    Ok((record, nodes, moves))
}

/// Refuses an export that is not Omni's, is newer than this reader, or whose tree does
/// not hold together (numbers in order, parents before children, moves within the tree).
fn check(session: &ExportedSession) -> Result<(), String> {
    if session.format != wire::EXPORT_FORMAT {
        return Err(format!(
            "not an Omni session (format {:?}, expected {:?})",
            session.format,
            wire::EXPORT_FORMAT
        ));
    }
    if session.version > wire::EXPORT_VERSION {
        return Err(format!(
            "written by a newer Omni (export version {}; this one reads up to {})",
            session.version,
            wire::EXPORT_VERSION
        ));
    }
    let count = session.nodes.len() as u64;
    for (index, node) in session.nodes.iter().enumerate() {
        let expected = index as u64 + 1;
        if node.id != expected {
            return Err(format!("node {} is numbered {expected}th", node.id));
        }
        if node.parent >= node.id {
            return Err(format!(
                "node {}'s parent {} comes after it",
                node.id, node.parent
            ));
        }
    }
    let within = |node: u64| node <= count;
    for (index, mv) in session.moves.iter().enumerate() {
        let expected = index as u64 + 1;
        let earlier = |seq: Option<u64>| seq.is_none_or(|s| s >= 1 && s < mv.seq);
        if mv.seq != expected || !within(mv.from) || !within(mv.to) {
            return Err(format!("move {} does not fit the tree", mv.seq));
        }
        if !earlier(mv.prev_redoable) || !earlier(mv.redoes) {
            return Err(format!("move {} names a later move", mv.seq));
        }
    }
    if !within(session.head) {
        return Err(format!(
            "the head {} is not a node ({count} nodes)",
            session.head
        ));
    }
    if session
        .redo_top
        .is_some_and(|top| top == 0 || top > session.moves.len() as u64)
    {
        return Err("the redo stack names a move that is not there".into());
    }
    Ok(())
}

fn node_record(node: ExportedNode) -> NodeRecord {
    NodeRecord {
        id: node.id,
        parent: node.parent,
        role: role(node.role),
        parts: node.parts.into_iter().map(part).collect(),
        created_at_ms: node.created_at_ms,
        model: node.model.map(model_info),
    }
}

fn role(role: wire::Role) -> Role {
    match role {
        wire::Role::User => Role::User,
        wire::Role::Model => Role::Model,
        wire::Role::Tool => Role::Tool,
    }
}

fn part(part: wire::Part) -> Part {
    let content = match part.content {
        wire::PartContent::Text(text) => PartContent::Text(text),
        wire::PartContent::Thought(text) => PartContent::Thought(text),
        wire::PartContent::FunctionCall {
            id,
            name,
            args_json,
        } => PartContent::FunctionCall {
            id,
            name,
            args_json,
        },
        wire::PartContent::FunctionResponse {
            id,
            name,
            response_json,
        } => PartContent::FunctionResponse {
            id,
            name,
            response_json,
        },
        wire::PartContent::Other { json } => PartContent::Other { json },
    };
    Part {
        content,
        thought_signature: part.thought_signature,
    }
}

fn model_info(info: wire::ModelInfo) -> ModelInfo {
    ModelInfo {
        model: info.model,
        model_version: info.model_version,
        finish_reason: info.finish_reason,
        usage: info.usage.map(|u| Usage {
            prompt_tokens: u.prompt_tokens,
            answer_tokens: u.answer_tokens,
            thought_tokens: u.thought_tokens,
            total_tokens: u.total_tokens,
            cached_tokens: u.cached_tokens,
        }),
        attempts: info.attempts,
        latency_ms: info.latency_ms,
        interrupted: info.interrupted,
        provider: info.provider,
    }
}

fn move_record(mv: &ExportedMove) -> MoveRecord {
    let kind = match mv.kind {
        ExportedMoveKind::Prompt => MoveKind::Prompt,
        ExportedMoveKind::Answer => MoveKind::Answer,
        ExportedMoveKind::Undo => MoveKind::Undo,
        ExportedMoveKind::Back => MoveKind::Back,
        ExportedMoveKind::Redo => MoveKind::Redo,
        ExportedMoveKind::Checkout => MoveKind::Checkout,
        ExportedMoveKind::ToolResults => MoveKind::ToolResults,
        ExportedMoveKind::DeepRollback => MoveKind::DeepRollback,
        ExportedMoveKind::ClearTurn => MoveKind::ClearTurn,
        ExportedMoveKind::Ignore => MoveKind::Ignore,
        ExportedMoveKind::Retry => MoveKind::Retry,
    };
    MoveRecord {
        seq: mv.seq,
        kind,
        from: mv.from,
        to: mv.to,
        at_ms: mv.at_ms,
        prev_redoable: mv.prev_redoable,
        redoes: mv.redoes,
    }
}
