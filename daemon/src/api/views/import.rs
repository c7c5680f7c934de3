//! An export (Omni's own, or what a reader made of another tool's file) as the records of
//! a new session, once its tree is checked. Pure functions.

use omni_proto as wire;
use omni_proto::{ExportedMove, ExportedMoveKind, ExportedNode, ExportedSession};
use uuid::Uuid;

use crate::model::{
    ModelInfo, MoveKind, MoveRecord, NodeRecord, Part, PartContent, Role, SessionRecord, Usage,
};

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
            return Err(format!(
                "node {} stands where node {expected} should",
                node.id
            ));
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
        wire::Role::Summary => Role::Summary,
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
        wire::PartContent::Compaction {
            resumes_at,
            instructions,
        } => PartContent::Compaction {
            resumes_at,
            instructions,
        },
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
        ExportedMoveKind::Compact => MoveKind::Compact,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn session(nodes: Vec<ExportedNode>, head: u64) -> ExportedSession {
        ExportedSession {
            format: wire::EXPORT_FORMAT.into(),
            version: wire::EXPORT_VERSION,
            id: "not-a-uuid".into(),
            title: String::new(),
            title_set: false,
            origin: None,
            model: None,
            fallback: Vec::new(),
            system: None,
            tools_json: None,
            created_at_ms: 5,
            updated_at_ms: 9,
            head,
            redo_top: None,
            nodes,
            moves: Vec::new(),
        }
    }

    fn node(id: u64, parent: u64, role: wire::Role, text: &str) -> ExportedNode {
        let usage = wire::Usage {
            prompt_tokens: 10,
            answer_tokens: 4,
            thought_tokens: 1,
            total_tokens: 15,
            cached_tokens: 2,
        };
        ExportedNode {
            id,
            parent,
            role,
            parts: vec![wire::Part::text(text)],
            created_at_ms: id,
            model: (role == wire::Role::Model).then(|| wire::ModelInfo {
                model: "m".into(),
                model_version: None,
                finish_reason: None,
                usage: Some(usage),
                attempts: 1,
                latency_ms: 1,
                interrupted: false,
                provider: "p".into(),
            }),
        }
    }

    #[test]
    fn a_foreign_tree_gets_its_title_from_the_first_prompt_and_its_usage_counted() {
        let nodes = vec![
            node(1, 0, wire::Role::User, "\n  first line\nsecond"),
            node(2, 1, wire::Role::Model, "a"),
            node(3, 1, wire::Role::Model, "b"),
        ];
        let id = Uuid::new_v4();
        let (record, nodes, moves) =
            records(&session(nodes, 3), id, |t| format!("<{}>", t.trim())).unwrap();
        assert_eq!(record.title, "<first line\nsecond>");
        assert_eq!((record.id, record.head, record.nodes), (id, 3, 3));
        assert_eq!((nodes.len(), moves.len()), (3, 0));
        assert_eq!(record.usage.len(), 1);
        let usage = &record.usage[0];
        assert_eq!(usage.model, "p/m");
        assert_eq!(
            (
                usage.answers,
                usage.input,
                usage.cached,
                usage.output,
                usage.thinking
            ),
            (2, 20, 4, 8, 2)
        );
    }

    #[test]
    fn trees_that_do_not_hold_together_are_refused_with_the_reason() {
        let title = |t: &str| t.to_string();
        let refused = |s: ExportedSession| records(&s, Uuid::new_v4(), title).unwrap_err();
        let one = || vec![node(1, 0, wire::Role::User, "q")];
        assert!(refused(session(one(), 2)).contains("the head 2 is not a node"));
        let gap = vec![node(2, 0, wire::Role::User, "q")];
        assert!(refused(session(gap, 0)).contains("node 2 stands where node 1 should"));
        let mut other = session(one(), 1);
        other.format = "something".into();
        assert!(refused(other).contains("not an Omni session"));
        let mut newer = session(one(), 1);
        newer.version = wire::EXPORT_VERSION + 1;
        assert!(refused(newer).contains("newer Omni"));
        let mut far = session(one(), 1);
        far.moves.push(ExportedMove {
            seq: 1,
            kind: ExportedMoveKind::Checkout,
            from: 0,
            to: 7,
            at_ms: 1,
            prev_redoable: None,
            redoes: None,
        });
        assert!(refused(far).contains("move 1 does not fit the tree"));
    }
}
