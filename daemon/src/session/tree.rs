//! The session tree as plain data: who is whose parent, where the head is, and where each
//! move would take it. No I/O, so every rule of the session tree is unit-tested here.
//!
//! Nodes are numbered 1, 2, 3 ... in creation order; [`ROOT`] (0) is the empty start of the
//! conversation. Moves only read a few links above the head, so their cost does not grow
//! with the session's length.

use std::collections::HashMap;

use crate::model::Role;
pub use crate::model::{NodeId, ROOT};

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

/// What a compaction covers and keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionPlan {
    /// The nodes the summary stands for, in context order.
    pub covers: Vec<NodeId>,
    /// The first node kept whole after the summary, if any.
    pub resumes_at: Option<NodeId>,
}

/// The model's context at a node, in its three pieces: the summary that starts it (if a
/// compaction is on the path), the nodes that summary kept whole, and the nodes after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextParts {
    /// The nearest summary at or above the node.
    pub summary: Option<NodeId>,
    /// The nodes it kept, oldest first (they lie above it in the tree).
    pub kept: Vec<NodeId>,
    /// The nodes below it (or from the start, without a summary), oldest first.
    pub after: Vec<NodeId>,
}

impl ContextParts {
    /// Every node the model sees, in the order it sees them.
    pub fn nodes(&self) -> Vec<NodeId> {
        let mut nodes = Vec::with_capacity(1 + self.kept.len() + self.after.len());
        nodes.extend(self.summary);
        nodes.extend(&self.kept);
        nodes.extend(&self.after);
        nodes
    }
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

    /// Appends a compaction's summary under `parent` (the head it was made at), keeping
    /// the nodes from `resumes_at` to `parent` whole after it.
    pub fn push_summary(
        &mut self,
        parent: NodeId,
        resumes_at: Option<NodeId>,
    ) -> Result<NodeId, TreeError> {
        if let Some(first) = resumes_at
            && (first == ROOT || !self.contains(parent) || !self.is_on_path_to(first, parent))
        {
            return Err(TreeError::NotKept(first));
        }
        let id = self.push(parent, Role::Summary)?;
        self.summaries.insert(id, resumes_at);
        Ok(id)
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

    /// The model's context when `node` is the head: up from it to the nearest summary,
    /// then the nodes that summary kept. Without a summary on the path, the whole path.
    pub fn context_parts(&self, node: NodeId) -> ContextParts {
        let mut after = Vec::new();
        let mut at = node;
        while at != ROOT {
            if let Some(&resumes_at) = self.summaries.get(&at) {
                after.reverse();
                let kept = match resumes_at {
                    Some(first) => self.path_from(first, self.link(at).parent),
                    None => Vec::new(),
                };
                return ContextParts {
                    summary: Some(at),
                    kept,
                    after,
                };
            }
            after.push(at);
            at = self.link(at).parent;
        }
        after.reverse();
        ContextParts {
            summary: None,
            kept: Vec::new(),
            after,
        }
    }

    /// Every node the model sees when `node` is the head, in order.
    pub fn context_path(&self, node: NodeId) -> Vec<NodeId> {
        self.context_parts(node).nodes()
    }

    /// The nodes from `first` down to `last`, oldest first (`first` is on the path to
    /// `last`, checked when the summary was pushed).
    fn path_from(&self, first: NodeId, last: NodeId) -> Vec<NodeId> {
        let mut path = Vec::new();
        let mut at = last;
        loop {
            path.push(at);
            if at == first || at == ROOT {
                break;
            }
            at = self.link(at).parent;
        }
        path.reverse();
        path
    }

    /// What a compaction at the head would cover, keeping the `keep` latest rounds whole
    /// (counted after the latest summary; a round starts at a prompt, so a tool chain is
    /// never cut). A prompt waiting at the head for its answer is always kept.
    pub fn compaction_plan(&self, keep: u32) -> Result<CompactionPlan, TreeError> {
        let parts = self.context_parts(self.head);
        let pending = matches!(self.role(self.head), Some(Role::User | Role::Tool));
        let keep = if pending { keep.max(1) } else { keep };
        let prompts: Vec<usize> = (0..parts.after.len())
            .filter(|&i| self.role(parts.after[i]) == Some(Role::User))
            .collect();
        let cut = match keep {
            0 => None,
            keep => Some(prompts[prompts.len().saturating_sub(keep as usize)..].first()),
        };
        let (resumes_at, covered_after) = match cut {
            None => (None, parts.after.len()),
            Some(Some(&at)) => (Some(parts.after[at]), at),
            Some(None) => (None, parts.after.len()),
        };
        if resumes_at.is_none() && keep > 0 && !parts.after.is_empty() && pending {
            // The pending prompt lies before the latest summary's end: nothing to cover.
            return Err(TreeError::NothingToCompact { keep });
        }
        let mut covers = Vec::new();
        covers.extend(parts.summary);
        covers.extend(&parts.kept);
        covers.extend(&parts.after[..covered_after]);
        let only_a_summary = covers.len() == 1 && parts.summary.is_some();
        if covers.is_empty() || only_a_summary {
            return Err(TreeError::NothingToCompact { keep });
        }
        Ok(CompactionPlan { covers, resumes_at })
    }

    /// Whether `node` is a turn waiting for the model's answer: a prompt, function
    /// results, or a summary made while one of those waited.
    pub fn awaits_answer(&self, node: NodeId) -> bool {
        match self.role(node) {
            Some(Role::User | Role::Tool) => true,
            Some(Role::Summary) => {
                let parent = self.link(node).parent;
                matches!(self.role(parent), Some(Role::User | Role::Tool))
            }
            Some(Role::Model) | None => false,
        }
    }

    /// The latest user prompt on the path to the head (function results are not prompts).
    pub fn latest_prompt(&self) -> Option<NodeId> {
        let mut at = self.head;
        while at != ROOT {
            let link = self.link(at);
            if link.role == Role::User {
                return Some(at);
            }
            at = link.parent;
        }
        None
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
mod tests {
    use super::*;
    use Role::{Model, Tool, User};

    /// Builds a linear conversation of the given roles and puts the head at its end.
    fn linear(roles: &[Role]) -> Tree {
        let mut tree = Tree::new();
        let mut parent = ROOT;
        for &role in roles {
            parent = tree.push(parent, role).unwrap();
        }
        tree.set_head(parent).unwrap();
        tree
    }

    #[test]
    fn undo_keeps_the_prompt_and_drops_the_answer() {
        let tree = linear(&[User, Model, User, Model]);
        assert_eq!(tree.undo_target(), Ok(3));
    }

    #[test]
    fn undo_drops_a_whole_tool_chain() {
        // prompt, call, results, continuation
        let tree = linear(&[User, Model, User, Model, Tool, Model]);
        assert_eq!(tree.undo_target(), Ok(3));
    }

    #[test]
    fn undo_without_an_answer_is_refused() {
        let tree = linear(&[User, Model, User]);
        assert_eq!(
            tree.undo_target(),
            Err(TreeError::NoAnswerToUndo { prompt: 3 })
        );
        assert_eq!(Tree::new().undo_target(), Err(TreeError::NothingToUndo));
    }

    #[test]
    fn back_drops_the_latest_round() {
        let tree = linear(&[User, Model, User, Model]);
        assert_eq!(tree.back_target(), Ok(2));
        let tree = linear(&[User, Model]);
        assert_eq!(tree.back_target(), Ok(ROOT));
        let tree = linear(&[User, Model, User, Model, Tool, Model]);
        assert_eq!(
            tree.back_target(),
            Ok(2),
            "the tool chain goes with its prompt"
        );
    }

    #[test]
    fn a_round_starts_before_its_prompt() {
        let tree = linear(&[User, Model, Tool, Model, User, Model]);
        assert_eq!(
            tree.round_start(3),
            Ok(ROOT),
            "a tool node belongs to the round of prompt 1"
        );
        assert_eq!(tree.round_start(6), Ok(4));
        assert_eq!(tree.round_start(5), Ok(4), "a prompt opens its own round");
        assert_eq!(tree.round_start(ROOT), Err(TreeError::AtStart));
    }

    #[test]
    fn back_at_the_start_is_refused() {
        assert_eq!(Tree::new().back_target(), Err(TreeError::AtStart));
    }

    #[test]
    fn clear_drops_one_node() {
        let tree = linear(&[User, Model, Tool]);
        assert_eq!(tree.clear_target(), Ok(2));
        assert_eq!(Tree::new().clear_target(), Err(TreeError::AtStart));
    }

    #[test]
    fn a_new_prompt_after_a_rewind_forks_and_both_leaves_stay() {
        let mut tree = linear(&[User, Model, User, Model]);
        tree.set_head(tree.back_target().unwrap()).unwrap();
        let fork = tree.push(tree.head(), User).unwrap();
        tree.set_head(fork).unwrap();
        assert_eq!(tree.leaves(), vec![4, 5]);
        assert_eq!(tree.path_to(5), vec![1, 2, 5]);
        assert_eq!(tree.head_path_mask(), vec![true, true, false, false, true]);
        assert!(tree.is_on_path_to(2, 4));
        assert!(!tree.is_on_path_to(5, 4));
        assert_eq!(tree.fork_point(4), Some(2));
        assert_eq!(tree.fork_point(5), Some(2));
        assert_eq!(tree.left_by_move(4, 5), vec![4, 3]);
        assert_eq!(tree.left_by_move(5, 1), vec![5, 2]);
        assert_eq!(tree.left_by_move(1, 5), Vec::<NodeId>::new());
    }

    #[test]
    fn a_single_branch_forks_nowhere_and_branches_from_the_start_fork_at_0() {
        let mut tree = linear(&[User, Model]);
        assert_eq!(tree.fork_point(2), None);
        tree.push(ROOT, User).unwrap();
        assert_eq!(tree.fork_point(2), Some(ROOT));
        assert_eq!(tree.fork_point(3), Some(ROOT));
    }

    #[test]
    fn unknown_nodes_are_refused() {
        let mut tree = linear(&[User]);
        assert_eq!(tree.set_head(9), Err(TreeError::UnknownNode(9)));
        assert_eq!(tree.push(7, User), Err(TreeError::UnknownNode(7)));
        assert!(tree.set_head(ROOT).is_ok());
    }

    /// A session of `rounds` prompt-answer rounds, the head at its end.
    fn rounds(rounds: usize) -> Tree {
        linear(&[User, Model].repeat(rounds))
    }

    #[test]
    fn a_compaction_covers_all_but_the_kept_rounds_and_the_context_starts_at_its_summary() {
        let mut tree = rounds(5); // 1..=10
        let plan = tree.compaction_plan(2).unwrap();
        assert_eq!(plan.covers, (1..=6).collect::<Vec<_>>());
        assert_eq!(plan.resumes_at, Some(7));
        let summary = tree.push_summary(10, plan.resumes_at).unwrap();
        tree.set_head(summary).unwrap();
        assert_eq!(tree.context_path(summary), vec![11, 7, 8, 9, 10]);
        let prompt = tree.push(summary, User).unwrap();
        assert_eq!(tree.context_path(prompt), vec![11, 7, 8, 9, 10, 12]);
        assert_eq!(tree.path_to(prompt).len(), 12, "the covered nodes stay on the path");
        assert_eq!(tree.undo_target(), Ok(10), "undo takes the compaction back");
    }

    #[test]
    fn a_second_compaction_covers_the_first_summary_and_keeps_only_rounds_after_it() {
        let mut tree = rounds(3); // 1..=6
        let first = tree.push_summary(6, Some(5)).unwrap(); // 7
        let mut at = first;
        for role in [User, Model, User, Model] {
            at = tree.push(at, role).unwrap(); // 8..=11
        }
        tree.set_head(at).unwrap();
        let plan = tree.compaction_plan(1).unwrap();
        assert_eq!(plan.covers, vec![7, 5, 6, 8, 9]);
        assert_eq!(plan.resumes_at, Some(10));
        let plan = tree.compaction_plan(5).unwrap();
        assert_eq!(plan.covers, vec![7, 5, 6], "kept rounds never reach past a summary");
        assert_eq!(plan.resumes_at, Some(8));
        let second = tree.push_summary(at, Some(10)).unwrap();
        assert_eq!(tree.context_path(second), vec![12, 10, 11]);
    }

    #[test]
    fn a_pending_prompt_is_always_kept_and_a_tool_chain_never_cut() {
        let tree = linear(&[User, Model, User, Model, Tool, Model, User]);
        let plan = tree.compaction_plan(0).unwrap();
        assert_eq!(plan.resumes_at, Some(7));
        let plan = tree.compaction_plan(1).unwrap();
        assert_eq!(plan.covers, (1..=6).collect::<Vec<_>>());
        let plan = tree.compaction_plan(2).unwrap();
        assert_eq!(plan.covers, vec![1, 2], "the tool chain goes with its prompt");
        assert_eq!(
            tree.compaction_plan(3),
            Err(TreeError::NothingToCompact { keep: 3 })
        );
    }

    #[test]
    fn an_answer_to_a_summary_undoes_to_the_summary_and_bad_summaries_are_refused() {
        let mut tree = rounds(2);
        let summary = tree.push_summary(4, Some(3)).unwrap();
        let answer = tree.push(summary, Model).unwrap();
        tree.set_head(answer).unwrap();
        assert_eq!(tree.undo_target(), Ok(summary));
        assert_eq!(tree.push_summary(4, Some(6)), Err(TreeError::NotKept(6)));
        assert_eq!(tree.push_summary(2, Some(3)), Err(TreeError::NotKept(3)));
        assert_eq!(tree.push_summary(4, Some(ROOT)), Err(TreeError::NotKept(ROOT)));
    }

    #[test]
    fn depth_and_path_agree() {
        let tree = linear(&[User, Model, User, Model, User]);
        for node in 1..=tree.len() {
            assert_eq!(tree.path_to(node).len() as u32, tree.depth(node));
        }
    }
}
