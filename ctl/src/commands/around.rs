//! `history --around N`: the nodes around one node (a search hit): the turns that led to
//! it and those that followed it, along its latest branch.

use omni_proto::{Entry, HistoryView};

use crate::error::CtlError;

/// The entries around `node`: up to `context` of its ancestors, the node, and up to
/// `context` nodes after it (at each step its latest child), in creation order.
pub fn entries(view: &HistoryView, node: u64, context: u64) -> Result<Vec<Entry>, CtlError> {
    let by_id = |id: u64| view.entries.iter().find(|e| e.id == id);
    let Some(hit) = by_id(node) else {
        return Err(CtlError::failure(format!(
            "session {} has no node {node} (its nodes are 1 to {})",
            view.session,
            view.entries.len()
        )));
    };
    let mut kept = vec![hit.id];
    let mut parent = hit.parent;
    while let Some(id) = parent.filter(|_| (kept.len() as u64) <= context) {
        kept.push(id);
        parent = by_id(id).and_then(|e| e.parent);
    }
    let mut at = hit.id;
    for _ in 0..context {
        let latest_child = view.entries.iter().rev().find(|e| e.parent == Some(at));
        match latest_child {
            Some(child) => {
                kept.push(child.id);
                at = child.id;
            }
            None => break,
        }
    }
    Ok(view
        .entries
        .iter()
        .filter(|e| kept.contains(&e.id))
        .cloned()
        .collect())
}
