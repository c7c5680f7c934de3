//! The session tree as plain data: who is whose parent, where the head is, and where each
//! move would take it. No I/O, so every rule of the session tree is unit-tested here.
//!
//! Nodes are numbered 1, 2, 3 ... in creation order; [`ROOT`] (0) is the empty start of the
//! conversation. Moves only read a few links above the head, so their cost does not grow
//! with the session's length.

mod compaction;

use std::collections::HashMap;

use crate::model::Role;
pub use crate::model::{NodeId, ROOT};
pub use compaction::{CompactionPlan, DEFAULT_KEEP};

/// Why a move is not possible. Each message says what to do instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// `back` (or clear) at the very start of the conversation.
    #[error("already at the start of the conversation: there is nothing to go back to")]
    AtStart,
    /// `undo` before any prompt.
    #[error("nothing to undo: the conversation has no prompt yet")]
    NothingToUndo,
    /// `undo` when the latest prompt has no answer.
    #[error(
        "nothing to undo: the latest prompt (node {prompt}) has no answer; \
         use `omnictl back` to drop the prompt as well"
    )]
    NoAnswerToUndo {
        /// The latest prompt.
        prompt: NodeId,
    },
    /// A node number that does not exist in this session.
    #[error("node {0} does not exist in this session (see `omnictl history`)")]
    UnknownNode(NodeId),
    /// A compaction that would cover nothing.
    #[error(
        "nothing to compact: the context holds no more than the {keep} latest rounds kept \
         whole (and any earlier summary); `--keep` fewer to cover more"
    )]
    NothingToCompact {
        /// The rounds asked to be kept.
        keep: u32,
    },
    /// A summary whose kept nodes do not lead to it.
    #[error("node {0} is not on the path to the summary's parent")]
    NotKept(NodeId),
}

#[derive(Debug, Clone, Copy)]
struct Link {
    parent: NodeId,
    role: Role,
    depth: u32,
    children: u32,
}

/// The shape of one session: every node's parent and role, and the head.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    links: Vec<Link>,
    head: NodeId,
    /// Each summary node and the first node it kept (few: one per compaction).
    summaries: HashMap<NodeId, Option<NodeId>>,
}

impl Tree {
    /// An empty tree whose head is [`ROOT`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a node under `parent` and returns its number. The head does not move.
    pub fn push(&mut self, parent: NodeId, role: Role) -> Result<NodeId, TreeError> {
        if !self.contains(parent) {
            return Err(TreeError::UnknownNode(parent));
        }
        let depth = self.depth(parent) + 1;
        if parent != ROOT {
            self.link_mut(parent).children += 1;
        }
        self.links.push(Link {
            parent,
            role,
            depth,
            children: 0,
        });
        Ok(self.links.len() as NodeId)
    }

    /// Number of nodes (the highest node number).
    pub fn len(&self) -> u64 {
        self.links.len() as u64
    }

    /// The node the conversation continues from.
    pub fn head(&self) -> NodeId {
        self.head
    }

    /// Moves the head to any existing node.
    pub fn set_head(&mut self, node: NodeId) -> Result<(), TreeError> {
        if !self.contains(node) {
            return Err(TreeError::UnknownNode(node));
        }
        self.head = node;
        Ok(())
    }

    /// Whether `node` exists ([`ROOT`] always does).
    pub fn contains(&self, node: NodeId) -> bool {
        node as usize <= self.links.len()
    }

    fn link(&self, node: NodeId) -> &Link {
        &self.links[node as usize - 1]
    }

    fn link_mut(&mut self, node: NodeId) -> &mut Link {
        &mut self.links[node as usize - 1]
    }

    /// The parent of an existing node; `None` for [`ROOT`] or an unknown node.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        (node != ROOT && self.contains(node)).then(|| self.link(node).parent)
    }

    /// The role of an existing node; `None` for [`ROOT`] or an unknown node.
    pub fn role(&self, node: NodeId) -> Option<Role> {
        (node != ROOT && self.contains(node)).then(|| self.link(node).role)
    }

    /// Nodes on the path from the start to `node` (0 for [`ROOT`]).
    pub fn depth(&self, node: NodeId) -> u32 {
        if node == ROOT {
            0
        } else {
            self.link(node).depth
        }
    }

    /// The path from the start to `node`, oldest first, [`ROOT`] excluded: exactly what the
    /// model sees when `node` is the head.
    pub fn path_to(&self, node: NodeId) -> Vec<NodeId> {
        let mut path = Vec::with_capacity(self.depth(node) as usize);
        let mut at = node;
        while at != ROOT {
            path.push(at);
            at = self.link(at).parent;
        }
        path.reverse();
        path
    }

    /// For every node (index = number - 1), whether it is on the path to the head. Nodes
    /// that are not are *reverted* in the transcript.
    pub fn head_path_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.links.len()];
        for node in self.path_to(self.head) {
            mask[node as usize - 1] = true;
        }
        mask
    }

    /// Whether `ancestor` is `node` or lies on the path to it.
    pub fn is_on_path_to(&self, ancestor: NodeId, node: NodeId) -> bool {
        let mut at = node;
        while self.depth(at) > self.depth(ancestor) {
            at = self.link(at).parent;
        }
        at == ancestor
    }

    /// The nodes a head move from `from` to `to` takes out of the context: those on the
    /// path to `from` that are not on the path to `to`, deepest first. Costs the length of
    /// the two paths below their common ancestor.
    pub fn left_by_move(&self, from: NodeId, to: NodeId) -> Vec<NodeId> {
        let (mut a, mut b) = (from, to);
        let mut left = Vec::new();
        while self.depth(a) > self.depth(b) {
            left.push(a);
            a = self.link(a).parent;
        }
        while self.depth(b) > self.depth(a) {
            b = self.link(b).parent;
        }
        while a != b {
            left.push(a);
            a = self.link(a).parent;
            b = self.link(b).parent;
        }
        left
    }

    /// The run of user prompts on the path that ends at `turn`, oldest first: what goes
    /// out together when a pending prompt was kept (empty when `turn` is not a prompt).
    pub fn prompts_ending_at(&self, turn: NodeId) -> Vec<NodeId> {
        let mut prompts = Vec::new();
        let mut at = turn;
        while at != ROOT && self.link(at).role == Role::User {
            prompts.push(at);
            at = self.link(at).parent;
        }
        prompts.reverse();
        prompts
    }

    /// Where `undo` moves the head: to the latest prompt, dropping its answer and any tool
    /// chain after it, keeping the prompt itself.
    /// A summary at the head is a compaction just made: undo takes it back, to the full
    /// context; an answer to a summary goes back to the summary.
    pub fn undo_target(&self) -> Result<NodeId, TreeError> {
        if self.role(self.head) == Some(Role::Summary) {
            return Ok(self.link(self.head).parent);
        }
        let mut at = self.head;
        while at != ROOT {
            match self.link(at).role {
                Role::User if at == self.head => {
                    return Err(TreeError::NoAnswerToUndo { prompt: at });
                }
                Role::User | Role::Summary => return Ok(at),
                Role::Model | Role::Tool => at = self.link(at).parent,
            }
        }
        Err(TreeError::NothingToUndo)
    }

    /// Where `back` (deep rollback) moves the head: to the parent of the latest prompt, so
    /// the whole round, including a broken tool chain, leaves the context.
    pub fn back_target(&self) -> Result<NodeId, TreeError> {
        self.round_start(self.head)
    }

    /// The parent of the user prompt that opened the round holding `node` (the nearest
    /// prompt at or above it): where the head goes to drop that whole round.
    pub fn round_start(&self, node: NodeId) -> Result<NodeId, TreeError> {
        let mut at = node;
        while at != ROOT {
            let link = self.link(at);
            if link.role == Role::User {
                return Ok(link.parent);
            }
            at = link.parent;
        }
        Err(TreeError::AtStart)
    }

    /// Where deep rollback moves the head: before the round that holds the poison when a
    /// failure named it (`rollback_to`), otherwise where `back` goes.
    pub fn deep_rollback_target(&self, rollback_to: Option<NodeId>) -> Result<NodeId, TreeError> {
        match rollback_to {
            Some(node) if self.contains(node) => Ok(node),
            _ => self.back_target(),
        }
    }

    /// Where *clear turn* moves the head: one node up.
    pub fn clear_target(&self) -> Result<NodeId, TreeError> {
        self.parent(self.head).ok_or(TreeError::AtStart)
    }

    /// Where the branch ending at `leaf` parts from the others: the nearest node above it
    /// with more than one child ([`ROOT`] when they part at the start); `None` when no
    /// other branch shares its path.
    pub fn fork_point(&self, leaf: NodeId) -> Option<NodeId> {
        let mut at = self.parent(leaf)?;
        while at != ROOT {
            let link = self.link(at);
            if link.children > 1 {
                return Some(at);
            }
            at = link.parent;
        }
        let starts = self.links.iter().filter(|l| l.parent == ROOT).count();
        (starts > 1).then_some(ROOT)
    }

    /// Every node without children, in creation order: the branches.
    pub fn leaves(&self) -> Vec<NodeId> {
        (1..=self.len())
            .filter(|&node| self.link(node).children == 0)
            .collect()
    }
}

#[cfg(test)]
mod tests;
