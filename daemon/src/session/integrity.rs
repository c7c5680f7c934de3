//! Whether a session's records agree with each other: the counts in its record against
//! the nodes and moves stored, its head, and every node's parent. A session whose records
//! disagree is *damaged*: it stays readable, refuses changes, and other sessions go on.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use uuid::Uuid;

use super::tree::{NodeId, ROOT, Tree, TreeError};
use crate::model::{NodeRecord, Role, SessionRecord};
use crate::store::{Link, Store, StoreError};

/// The checks that cost a few key lookups whatever the session's size. `None` when the
/// record agrees with what is stored. Nodes or moves past the record's counts are what a
/// crash cut short before the record was written: not a disagreement (see
/// `Store::apply`).
pub async fn check_record(
    store: &Store,
    record: &SessionRecord,
) -> Result<Option<String>, StoreError> {
    let (node_held, move_held) = store.holds(&record.id, record.nodes, record.moves).await?;
    let problem = if !node_held {
        Some(format!(
            "its record counts {} nodes, but node {} is not stored",
            record.nodes, record.nodes
        ))
    } else if !move_held {
        Some(format!(
            "its record counts {} moves, but move {} is not stored",
            record.moves, record.moves
        ))
    } else if record.head > record.nodes {
        Some(format!(
            "its head is node {}, which does not exist",
            record.head
        ))
    } else if record.redo_top.is_some_and(|top| top > record.moves) {
        Some("its redo stack points past the end of its move log".to_string())
    } else {
        None
    };
    Ok(problem)
}

/// Rebuilds a session's tree from its nodes' places (`(node, parent, role)`, in creation
/// order) and head; the error says how the records disagree.
pub fn build_tree(
    record: &SessionRecord,
    places: impl ExactSizeIterator<Item = Place>,
) -> Result<Tree, String> {
    if places.len() as u64 != record.nodes {
        return Err(format!(
            "its record counts {} nodes, but {} are stored",
            record.nodes,
            places.len()
        ));
    }
    let mut tree = Tree::new();
    for Place {
        node,
        parent,
        role,
        resumes_at,
    } in places
    {
        let pushed = match role {
            Role::Summary => tree.push_summary(parent, resumes_at),
            _ => tree.push(parent, role),
        };
        let id = pushed.map_err(|error| match error {
            TreeError::NotKept(first) => {
                format!("summary {node} keeps node {first}, which does not lead to it")
            }
            _ => format!("node {node} has parent {parent}, which does not exist"),
        })?;
        if id != node {
            return Err(format!("node {id} is missing (node {node} follows)"));
        }
    }
    tree.set_head(record.head)
        .map_err(|_| format!("its head is node {}, which does not exist", record.head))?;
    Ok(tree)
}

/// One node's place in its session's tree, for [`build_tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The node.
    pub node: NodeId,
    /// Its parent.
    pub parent: NodeId,
    /// Its role.
    pub role: Role,
    /// For a summary: the first node it kept whole after it.
    pub resumes_at: Option<NodeId>,
}

/// Each node's place, for [`build_tree`].
pub fn places(nodes: &[NodeRecord]) -> impl ExactSizeIterator<Item = Place> {
    nodes.iter().map(|n| Place {
        node: n.id,
        parent: n.parent,
        role: n.role,
        resumes_at: n.resumes_at(),
    })
}

/// The places the store's index gives (node numbers follow from the order); a summary's
/// node is read for what it kept (one read per compaction).
pub async fn indexed(
    store: &Store,
    session: &Uuid,
    links: &[Link],
) -> Result<Vec<Place>, StoreError> {
    let mut places = Vec::with_capacity(links.len());
    for (i, link) in links.iter().enumerate() {
        let node = i as NodeId + 1;
        let resumes_at = match link.role {
            Role::Summary => store.node(session, node).await?.resumes_at(),
            Role::User | Role::Model | Role::Tool => None,
        };
        places.push(Place {
            node,
            parent: link.parent,
            role: link.role,
            resumes_at,
        });
    }
    Ok(places)
}

/// The nodes on the path from the start to `head`, following the stored parent links as
/// far as they lead: what the model would see, as well as a damaged session can tell.
pub fn stored_path(nodes: &[NodeRecord], head: NodeId) -> HashSet<NodeId> {
    let parents: HashMap<NodeId, NodeId> = nodes.iter().map(|n| (n.id, n.parent)).collect();
    let mut path = HashSet::new();
    let mut at = head;
    while at != ROOT && path.insert(at) {
        match parents.get(&at) {
            Some(&parent) => at = parent,
            None => break,
        }
    }
    path
}

/// The sessions found damaged so far, with what is wrong with each.
#[derive(Debug, Default)]
pub struct Damaged(Mutex<HashMap<Uuid, String>>);

impl Damaged {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, String>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records that a session is damaged (logged the first time).
    pub fn mark(&self, id: Uuid, reason: &str) {
        let mut map = self.map();
        if let std::collections::hash_map::Entry::Vacant(entry) = map.entry(id) {
            tracing::error!(session = %id, "session damaged: {reason}; it stays readable and refuses changes");
            entry.insert(reason.to_string());
        }
    }

    /// Forgets a session that no longer exists (purged).
    pub fn forget(&self, id: &Uuid) {
        self.map().remove(id);
    }

    /// What is wrong with a session, if it is damaged.
    pub fn get(&self, id: &Uuid) -> Option<String> {
        self.map().get(id).cloned()
    }

    /// Every damaged session, in id order.
    pub fn all(&self) -> Vec<(Uuid, String)> {
        let mut all: Vec<_> = self.map().iter().map(|(id, r)| (*id, r.clone())).collect();
        all.sort();
        all
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Part;

    use super::*;

    fn node(id: NodeId, parent: NodeId) -> NodeRecord {
        NodeRecord {
            id,
            parent,
            role: if id % 2 == 1 { Role::User } else { Role::Model },
            parts: vec![Part::text("x")],
            created_at_ms: 0,
            model: None,
        }
    }

    fn record(nodes: u64, head: NodeId) -> SessionRecord {
        let mut record = SessionRecord::new(Uuid::nil(), 0);
        record.nodes = nodes;
        record.head = head;
        record
    }

    #[test]
    fn records_that_disagree_are_named() {
        let nodes = [node(1, 0), node(2, 1), node(3, 2)];
        assert!(build_tree(&record(3, 3), places(&nodes)).is_ok());
        let err = build_tree(&record(4, 3), places(&nodes)).unwrap_err();
        assert!(err.contains("counts 4 nodes, but 3 are stored"), "{err}");
        let err = build_tree(&record(3, 7), places(&nodes)).unwrap_err();
        assert!(err.contains("head is node 7"), "{err}");
        let orphan = [node(1, 0), node(2, 9)];
        let err = build_tree(&record(2, 2), places(&orphan)).unwrap_err();
        assert!(err.contains("node 2 has parent 9"), "{err}");
        let gap = [node(1, 0), node(3, 1)];
        let err = build_tree(&record(2, 1), places(&gap)).unwrap_err();
        assert!(err.contains("node 2 is missing"), "{err}");
    }

    #[test]
    fn the_stored_path_follows_parents_as_far_as_they_lead() {
        let nodes = [node(1, 0), node(2, 1), node(3, 9), node(4, 3)];
        assert_eq!(stored_path(&nodes, 2), HashSet::from([1, 2]));
        // Node 3's parent 9 does not exist: the path stops there.
        assert_eq!(stored_path(&nodes, 4), HashSet::from([4, 3, 9]));
        assert!(stored_path(&nodes, 0).is_empty());
    }
}
