//! What clients see of a session, in the wire protocol's types: transcript, branches,
//! summaries. Pure functions over the stored records and the tree.

pub mod context;
pub mod diag;
pub mod export;
pub mod import;
pub mod markdown;
pub mod page;
pub mod status;
pub mod usage;

use omni_proto::{
    Branch, BranchList, Entry, HistoryView, OriginKind, RecoveryAction, RecoveryPreview,
    RevertReason, SessionSummary,
};

use crate::api::reverts::revert_reasons;
use crate::config::{Config, Prices};
use crate::model::{MoveRecord, NodeId, NodeRecord, SessionRecord};
use crate::provider::{Kind, ProviderConfig};
use crate::session::calls::pending_calls;
use crate::session::integrity::stored_path;
use crate::session::tree::{DEFAULT_KEEP, Tree};
use crate::text::last_line;

/// Where each node stands against the model's context, beyond being reverted or not.
#[derive(Default)]
struct Standing {
    /// On the path to the head, but summarised by a compaction.
    compacted: bool,
    /// For a summary: what it stands for.
    compaction: Option<omni_proto::Compaction>,
}

fn entry(
    node: NodeRecord,
    reverted: bool,
    why_reverted: Option<RevertReason>,
    standing: Standing,
) -> Entry {
    let client_compaction =
        node.role == crate::model::Role::User && crate::text::is_client_summary(&node.text());
    Entry {
        compacted: standing.compacted,
        compaction: standing.compaction,
        client_compaction,
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
    context: omni_proto::ContextGauge,
) -> HistoryView {
    let reasons = revert_reasons(tree, &nodes, moves);
    let usage = usage::totals(&crate::usage::of_session(record, &nodes), prices);
    let in_context: std::collections::HashSet<NodeId> =
        tree.context_path(tree.head()).into_iter().collect();
    let entries = nodes
        .into_iter()
        .filter_map(|node| {
            let why = reasons.get(node.id as usize - 1).copied().flatten();
            let compacted = why.is_none() && !in_context.contains(&node.id);
            let standing = Standing {
                compacted,
                compaction: compaction(tree, &node),
            };
            (!active_only || (why.is_none() && !compacted))
                .then(|| entry(node, why.is_some(), why, standing))
        })
        .collect();
    HistoryView {
        session: record.id.to_string(),
        head: tree.head(),
        entries,
        damaged: None,
        usage,
        context,
        earlier: None,
    }
}

/// What a summary stands for: the context it was made from, up to the nodes it kept.
fn compaction(tree: &Tree, node: &NodeRecord) -> Option<omni_proto::Compaction> {
    let instructions = node.parts.iter().find_map(|part| match &part.content {
        crate::model::PartContent::Compaction { instructions, .. } => Some(instructions.clone()),
        _ => None,
    })?;
    let resumes_at = node.resumes_at();
    let covers = tree
        .context_path(node.parent)
        .into_iter()
        .take_while(|&id| Some(id) != resumes_at)
        .collect();
    Some(omni_proto::Compaction {
        covers,
        resumes_at,
        instructions,
    })
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
    context: omni_proto::ContextGauge,
) -> HistoryView {
    let on_path = head
        .map(|head| stored_path(&nodes, head))
        .unwrap_or_default();
    let entries = nodes
        .into_iter()
        .filter_map(|node| {
            // The move log of a damaged session is not trusted: no reason is given.
            let reverted = !on_path.contains(&node.id);
            (!active_only || !reverted).then(|| entry(node, reverted, None, Standing::default()))
        })
        .collect();
    HistoryView {
        session: id.to_string(),
        head: head.unwrap_or(0),
        entries,
        damaged: Some(reason.to_string()),
        usage: omni_proto::UsageTotals::default(),
        context,
        earlier: None,
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
/// session does not need recovery). Compaction comes first when the context is too long
/// (`too_long`), else last; it is offered when there is something to summarise.
pub fn recovery_choices(
    record: &SessionRecord,
    tree: &Tree,
    too_long: bool,
) -> Vec<RecoveryPreview> {
    let Some(recovery) = &record.needs_recovery else {
        return Vec::new();
    };
    let head = tree.head();
    let mut choices: Vec<RecoveryPreview> = RecoveryAction::ALL
        .into_iter()
        .filter_map(|action| {
            let (target, covers) = match action {
                RecoveryAction::Deep => (
                    tree.deep_rollback_target(recovery.rollback_to).ok()?,
                    Vec::new(),
                ),
                RecoveryAction::Clear => (tree.clear_target().ok()?, Vec::new()),
                RecoveryAction::Ignore | RecoveryAction::Retry => (head, Vec::new()),
                RecoveryAction::Compact => {
                    let plan = tree.compaction_plan(DEFAULT_KEEP).ok()?;
                    (tree.len() + 1, plan.covers)
                }
            };
            let drops = match action {
                RecoveryAction::Compact => Vec::new(),
                _ => tree.left_by_move(head, target),
            };
            Some(RecoveryPreview {
                action,
                head_after: target,
                drops,
                covers,
                first: too_long && action == RecoveryAction::Compact,
            })
        })
        .collect();
    if !too_long {
        choices.sort_by_key(|choice| choice.action == RecoveryAction::Compact);
    }
    choices
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
        // Measured by the caller, which reads the store (`handlers::sessions::context`).
        context: context::unmeasured(),
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
        // Read from the move log by the caller (`handlers::sessions::can_redo`).
        can_redo: false,
    }
}

/// The line of a session whose record cannot be read at all.
pub fn unreadable_summary(id: &uuid::Uuid, reason: &str) -> SessionSummary {
    SessionSummary {
        context: context::unmeasured(),
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
        can_redo: false,
    }
}

/// The model a session's next send asks and its fallbacks, as `PROVIDER/MODEL`: its own,
/// else the daemon's.
/// Whether `reference` is `FAMILY/MODEL` for a provider family no configured provider is
/// named after (an imported gemini-cli session's `gemini/...` where only `openai` is
/// configured): it is shown as it was recorded, not as a model of the default provider
/// (`openai/gemini/...`).
fn names_an_absent_family(reference: &str, providers: &ProviderConfig) -> bool {
    reference.split_once('/').is_some_and(|(prefix, _)| {
        Kind::ALL.iter().any(|kind| kind.as_str() == prefix)
            && !providers.all().any(|p| p.name == prefix)
    })
}

pub fn models_in_effect(
    record: &SessionRecord,
    providers: &ProviderConfig,
) -> (String, Vec<String>) {
    let canonical = |reference: &String| match providers.resolve(reference) {
        Ok(resolved) if !names_an_absent_family(reference, providers) => resolved.reference(),
        _ => reference.clone(),
    };
    let model = canonical(record.model.as_ref().unwrap_or(&providers.model));
    let fallback = if record.fallback.is_empty() {
        &providers.fallback
    } else {
        &record.fallback
    };
    (model, fallback.iter().map(canonical).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Provider;

    #[test]
    fn a_model_of_a_family_no_provider_is_named_after_is_shown_as_recorded() {
        let openai = |name: &str| Provider {
            name: name.into(),
            kind: Kind::OpenAi,
            base_url: "http://127.0.0.1:9/v1".into(),
            api_key: None,
        };
        let providers = ProviderConfig {
            default: openai("openai"),
            named: vec![openai("local")],
            model: "gpt-4o".into(),
            fallback: Vec::new(),
            request: Default::default(),
            idle_timeout: std::time::Duration::from_secs(1),
        };
        let mut record = SessionRecord::new(uuid::Uuid::new_v4(), 1);
        record.model = Some("gemini/gemini-2.5-pro".into());
        assert_eq!(
            models_in_effect(&record, &providers).0,
            "gemini/gemini-2.5-pro"
        );
        record.model = Some("local/qwen".into());
        assert_eq!(models_in_effect(&record, &providers).0, "local/qwen");
        record.model = Some("meta/llama-3".into());
        assert_eq!(
            models_in_effect(&record, &providers).0,
            "openai/meta/llama-3"
        );
        record.model = None;
        assert_eq!(models_in_effect(&record, &providers).0, "openai/gpt-4o");
    }
}
