//! Compaction in the tree: a summary node stands for the nodes it covers, so the model's
//! context at a node is the nearest summary above it, the nodes that summary kept whole,
//! then what follows it. Every node stays where it is; only what the model sees changes.

use super::{NodeId, ROOT, Role, Tree, TreeError};

/// Rounds kept whole after a summary unless asked otherwise.
pub const DEFAULT_KEEP: u32 = 2;

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

impl Tree {
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

    /// The model's context when `node` is the head: up from it to the nearest summary,
    /// then the nodes that summary kept. Without a summary on the path, the whole path.
    pub fn context_parts(&self, node: NodeId) -> ContextParts {
        let mut after = Vec::new();
        let mut at = node;
        let summarised = !self.summaries.is_empty();
        while at != ROOT {
            if let Some(&resumes_at) = summarised.then(|| self.summaries.get(&at)).flatten() {
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
}
