//! Sessions: the tree (pure), what is stored, the actor that owns every change, and the
//! read-side views.

pub mod actor;
pub mod answer;
pub mod calls;
pub mod current;
pub mod record;
pub mod registry;
pub mod tree;
pub mod validate;
pub mod views;

use omni_proto::{ErrorKind, ErrorReply};

use record::{NodeRecord, SessionRecord};
use tree::Tree;

/// Rebuilds a session's tree from its stored nodes (in creation order) and head.
pub fn build_tree(record: &SessionRecord, nodes: &[NodeRecord]) -> Result<Tree, ErrorReply> {
    let corrupt = |what: String| {
        ErrorReply::new(
            ErrorKind::Internal,
            format!("session {} is inconsistent in the store: {what}", record.id),
        )
    };
    let mut tree = Tree::new();
    for node in nodes {
        let id = tree
            .push(node.parent, node.role)
            .map_err(|e| corrupt(format!("node {}: {e}", node.id)))?;
        if id != node.id {
            return Err(corrupt(format!(
                "expected node {id}, found node {}",
                node.id
            )));
        }
    }
    tree.set_head(record.head)
        .map_err(|e| corrupt(format!("head: {e}")))?;
    Ok(tree)
}
