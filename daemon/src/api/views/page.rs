//! A page of the transcript and the shape of the tree: what a client that shows a long
//! session a screen at a time reads, without the texts of the nodes it does not show.

use omni_proto::{HistoryView, RevertReason, TreeNode, TreeShape};

use super::{Standing, compaction, entry};
use crate::model::{NodeId, NodeRecord, SessionRecord};
use crate::session::tree::Tree;
use crate::store::Link;

/// Where every node stands: its revert reason (without telling an interrupted answer
/// apart: that needs the node) and whether a summary covers it.
pub struct Standings {
    /// Per node (index = id - 1): why it is out of the context, if it is.
    pub reasons: Vec<Option<RevertReason>>,
    /// Per node: on the path, but covered by a summary.
    pub compacted: Vec<bool>,
}

impl Standings {
    /// From the tree and the reasons the move log gives.
    pub fn of(tree: &Tree, reasons: Vec<Option<RevertReason>>) -> Self {
        let mut compacted = reasons.iter().map(Option::is_none).collect::<Vec<_>>();
        for id in tree.context_path(tree.head()) {
            compacted[id as usize - 1] = false;
        }
        Self { reasons, compacted }
    }

    /// Whether node `id` is in the model's context (neither reverted nor compacted).
    pub fn in_context(&self, id: NodeId) -> bool {
        let index = id as usize - 1;
        self.reasons[index].is_none() && !self.compacted[index]
    }
}

/// Of `ids` (ascending), those below `before`: the last `limit` of them, and the `before`
/// that asks for the page before this one when there is one.
pub fn window(
    ids: impl Iterator<Item = NodeId>,
    before: Option<NodeId>,
    limit: u32,
) -> (Vec<NodeId>, Option<NodeId>) {
    let mut below: Vec<NodeId> = ids
        .take_while(|&id| before.is_none_or(|b| id < b))
        .collect();
    let start = below.len().saturating_sub(limit as usize);
    let earlier = (start > 0).then(|| below[start]);
    (below.split_off(start), earlier)
}

/// The transcript's page of `nodes` (the window's, in order), as [`super::history`]
/// shows them.
pub fn history_page(
    record: &SessionRecord,
    tree: &Tree,
    nodes: Vec<NodeRecord>,
    standings: &Standings,
    earlier: Option<NodeId>,
    usage: omni_proto::UsageTotals,
    context: omni_proto::ContextGauge,
) -> HistoryView {
    let entries = nodes
        .into_iter()
        .map(|node| {
            let index = node.id as usize - 1;
            let interrupted = node.model.as_ref().is_some_and(|m| m.interrupted);
            let why = standings.reasons[index].map(|why| {
                if interrupted {
                    RevertReason::Interrupted
                } else {
                    why
                }
            });
            let standing = Standing {
                compacted: standings.compacted[index],
                compaction: compaction(tree, &node),
            };
            entry(node, why.is_some(), why, standing)
        })
        .collect();
    HistoryView {
        session: record.id.to_string(),
        head: tree.head(),
        entries,
        damaged: None,
        usage,
        context,
        earlier,
    }
}

/// A page cut from a whole transcript (a damaged session, which is read whole).
pub fn page_of(mut view: HistoryView, before: Option<NodeId>, limit: u32) -> HistoryView {
    let (ids, earlier) = window(view.entries.iter().map(|e| e.id), before, limit);
    view.entries
        .retain(|entry| ids.binary_search(&entry.id).is_ok());
    view.earlier = earlier;
    view
}

/// The tree's shape from its index.
pub fn shape(record: &SessionRecord, links: &[Link], standings: &Standings) -> TreeShape {
    let nodes = links
        .iter()
        .enumerate()
        .map(|(index, link)| TreeNode {
            id: index as NodeId + 1,
            parent: (link.parent != 0).then_some(link.parent),
            role: link.role.into(),
            reverted: standings.reasons[index].is_some(),
            compacted: standings.compacted[index],
        })
        .collect();
    TreeShape {
        session: record.id.to_string(),
        head: record.head,
        nodes,
    }
}

/// The tree's shape from a whole transcript (a damaged session).
pub fn shape_of(view: &HistoryView) -> TreeShape {
    let nodes = view
        .entries
        .iter()
        .map(|entry| TreeNode {
            id: entry.id,
            parent: entry.parent,
            role: entry.role,
            reverted: entry.reverted,
            compacted: entry.compacted,
        })
        .collect();
    TreeShape {
        session: view.session.clone(),
        head: view.head,
        nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_the_last_entries_below_its_bound() {
        assert_eq!(window(1..=10, None, 3), (vec![8, 9, 10], Some(8)));
        assert_eq!(window(1..=10, Some(8), 3), (vec![5, 6, 7], Some(5)));
        assert_eq!(window(1..=10, Some(3), 3), (vec![1, 2], None));
        assert_eq!(window(1..=2, None, 3), (vec![1, 2], None));
        assert_eq!(
            window([2, 4, 9].into_iter(), Some(9), 1),
            (vec![4], Some(4))
        );
    }
}
