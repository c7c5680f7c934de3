//! What clients see of a session, in the wire protocol's types: transcript, branches,
//! summaries. Pure functions over the stored records and the tree.

pub mod diag;
pub mod export;
pub mod import;
pub mod markdown;
pub mod status;
pub mod usage;

use omni_proto::{
    Branch, BranchList, Entry, HistoryView, OriginKind, RecoveryAction, RecoveryPreview,
    RevertReason, SessionSummary,
};

use crate::api::reverts::revert_reasons;
use crate::config::{Config, Prices};
use crate::model::{MoveRecord, NodeId, NodeRecord, SessionRecord};
use crate::provider::ProviderConfig;
use crate::session::calls::pending_calls;
use crate::session::integrity::stored_path;
use crate::session::tree::Tree;
use crate::text::last_line;

fn entry(node: NodeRecord, reverted: bool, why_reverted: Option<RevertReason>) -> Entry {
    Entry {
        id: node.id,
        parent: (node.parent != 0).then_some(node.parent),
        role: node.role.into(),
        text: node.text(),
        created_at_ms: node.created_at_ms,
        reverted,
        why_reverted,
        model: node.model.map(Into::into),
        parts: node.parts.into_iter().map(Into::into).collect(),
    }
}

/// The transcript: every node in creation order, those off the path to the head marked
/// reverted with the reason the move log gives; with `active_only`, just the path (what
/// the model sees next).
pub fn history(
    record: &SessionRecord,
    tree: &Tree,
    nodes: Vec<NodeRecord>,
    moves: &[MoveRecord],
    active_only: bool,
    prices: &Prices,
) -> HistoryView {
    let reasons = revert_reasons(tree, &nodes, moves);
    let usage = usage::totals(&crate::usage::of_session(record, &nodes), prices);
    let entries = nodes
        .into_iter()
        .filter_map(|node| {
            let why = reasons.get(node.id as usize - 1).copied().flatten();
            (!active_only || why.is_none()).then(|| entry(node, why.is_some(), why))
        })
        .collect();
    HistoryView {
        session: record.id.to_string(),
        head: tree.head(),
        entries,
        damaged: None,
        usage,
    }
}

/// The transcript of a damaged session, as stored: entries off the path that the stored
/// parent links lead along from `head` are marked reverted (every entry when the head is
/// unknown).
pub fn damaged_history(
    id: &uuid::Uuid,
    head: Option<NodeId>,
    nodes: Vec<NodeRecord>,
    reason: &str,
    active_only: bool,
) -> HistoryView {
    let on_path = head
        .map(|head| stored_path(&nodes, head))
        .unwrap_or_default();
    let entries = nodes
        .into_iter()
        .filter_map(|node| {
            // The move log of a damaged session is not trusted: no reason is given.
            let reverted = !on_path.contains(&node.id);
            (!active_only || !reverted).then(|| entry(node, reverted, None))
        })
        .collect();
    HistoryView {
        session: id.to_string(),
        head: head.unwrap_or(0),
        entries,
        damaged: Some(reason.to_string()),
        usage: omni_proto::UsageTotals::default(),
    }
}

/// Every leaf with its length and last line.
pub fn branches(record: &SessionRecord, tree: &Tree, nodes: &[NodeRecord]) -> BranchList {
    let branches = tree
        .leaves()
        .into_iter()
        .map(|leaf| {
            let node = &nodes[leaf as usize - 1];
            Branch {
                leaf,
                length: tree.depth(leaf),
                role: node.role.into(),
                last_line: last_line(&node.text(), 72),
                contains_head: tree.is_on_path_to(tree.head(), leaf),
                forks_at: tree.fork_point(leaf),
            }
        })
        .collect();
    BranchList {
        session: record.id.to_string(),
        head: tree.head(),
        branches,
    }
}

/// What each way out of *needs recovery* would take out of the context (nothing when the
/// session does not need recovery).
pub fn recovery_choices(record: &SessionRecord, tree: &Tree) -> Vec<RecoveryPreview> {
    let Some(recovery) = &record.needs_recovery else {
        return Vec::new();
    };
    let head = tree.head();
    RecoveryAction::ALL
        .into_iter()
        .filter_map(|action| {
            let target = match action {
                RecoveryAction::Deep => tree.deep_rollback_target(recovery.rollback_to).ok()?,
                RecoveryAction::Clear => tree.clear_target().ok()?,
                RecoveryAction::Ignore | RecoveryAction::Retry => head,
            };
            Some(RecoveryPreview {
                action,
                head_after: target,
                drops: tree.left_by_move(head, target),
            })
        })
        .collect()
}

/// One line of the session list; `head` is the head's node (for pending function calls),
/// `choices` what [`recovery_choices`] says.
pub fn summary(
    record: &SessionRecord,
    current: bool,
    head: Option<&NodeRecord>,
    damaged: Option<String>,
    recovery_choices: Vec<RecoveryPreview>,
    origin: Option<String>,
    config: &Config,
) -> SessionSummary {
    let (model, fallback) = models_in_effect(record, &config.provider);
    SessionSummary {
        model,
        fallback,
        id: record.id.to_string(),
        title: record.title.clone(),
        created_at_ms: record.created_at_ms,
        updated_at_ms: record.updated_at_ms,
        nodes: record.nodes,
        head: record.head,
        current,
        consecutive_failures: record.consecutive_failures,
        suspended: record.suspended.is_some(),
        needs_recovery: record.needs_recovery.as_ref().map(|r| r.reason.clone()),
        recovery_choices,
        pending_calls: pending_calls(record, head)
            .into_iter()
            .map(Into::into)
            .collect(),
        has_tools: record.tools_json.is_some(),
        damaged,
        origin_kind: OriginKind::of(origin.as_deref()),
        origin,
        usage: usage::totals(&record.usage, &config.prices),
        title_set: record.title_set,
        archived_at_ms: record.archived_at_ms,
        deleted_at_ms: record.deleted_at_ms,
    }
}

/// The line of a session whose record cannot be read at all.
pub fn unreadable_summary(id: &uuid::Uuid, reason: &str) -> SessionSummary {
    SessionSummary {
        id: id.to_string(),
        title: String::new(),
        created_at_ms: 0,
        updated_at_ms: 0,
        nodes: 0,
        head: 0,
        current: false,
        consecutive_failures: 0,
        suspended: false,
        needs_recovery: None,
        recovery_choices: Vec::new(),
        pending_calls: Vec::new(),
        has_tools: false,
        damaged: Some(reason.to_string()),
        origin: None,
        origin_kind: OriginKind::Own,
        title_set: false,
        archived_at_ms: None,
        deleted_at_ms: None,
        model: String::new(),
        fallback: Vec::new(),
        usage: omni_proto::UsageTotals::default(),
    }
}

/// The model a session's next send asks and its fallbacks, as `PROVIDER/MODEL`: its own,
/// else the daemon's.
pub fn models_in_effect(
    record: &SessionRecord,
    providers: &ProviderConfig,
) -> (String, Vec<String>) {
    let canonical = |reference: &String| {
        providers
            .resolve(reference)
            .map_or_else(|_| reference.clone(), |r| r.reference())
    };
    let model = canonical(record.model.as_ref().unwrap_or(&providers.model));
    let fallback = if record.fallback.is_empty() {
        &providers.fallback
    } else {
        &record.fallback
    };
    (model, fallback.iter().map(canonical).collect())
}
