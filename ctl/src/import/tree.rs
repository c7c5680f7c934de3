//! Builds one [`ExportedSession`] from a foreign file's messages: each reader pushes nodes
//! under the parent it found, keyed by the file's own message ids, and names the head; the
//! builder numbers them from 1 (parents always first) and fills in the export's fields.

use std::collections::HashMap;

use omni_proto::{
    EXPORT_FORMAT, EXPORT_VERSION, ExportedNode, ExportedSession, ModelInfo, Part, Role, Usage,
};

/// A session being assembled.
#[derive(Default)]
pub(crate) struct TreeBuilder {
    nodes: Vec<ExportedNode>,
    keys: HashMap<String, u64>,
}

impl TreeBuilder {
    /// Adds a node under `parent` (0 = the start) and returns its number; `key`, if any, is
    /// the file's id for it, which [`TreeBuilder::node_of`] finds again.
    pub fn push(&mut self, key: Option<&str>, parent: u64, node: NewNode) -> u64 {
        let id = self.nodes.len() as u64 + 1;
        self.nodes.push(ExportedNode {
            id,
            parent,
            role: node.role,
            parts: node.parts,
            created_at_ms: node.at_ms,
            model: node.model,
        });
        if let Some(key) = key {
            self.keys.insert(key.to_string(), id);
        }
        id
    }

    /// Names `key` as another id of node `id` (0 = the start): records the file skips, such
    /// as its bookkeeping lines, pass their place in the tree on to their children.
    pub fn alias(&mut self, key: &str, id: u64) {
        self.keys.insert(key.to_string(), id);
    }

    /// The node the file's id `key` became, if it was read.
    pub fn node_of(&self, key: &str) -> Option<u64> {
        self.keys.get(key).copied()
    }

    /// Node `id`, to add parts to an answer that arrives in pieces.
    pub fn node_mut(&mut self, id: u64) -> Option<&mut ExportedNode> {
        let index = usize::try_from(id).ok()?.checked_sub(1)?;
        self.nodes.get_mut(index)
    }

    /// The number of the last node pushed (0 when none was).
    pub fn last(&self) -> u64 {
        self.nodes.len() as u64
    }

    /// The session, with `head` as its head; `None` when it has no node.
    pub fn finish(self, meta: SessionMeta, head: u64) -> Option<ExportedSession> {
        if self.nodes.is_empty() {
            return None;
        }
        let first = self
            .nodes
            .iter()
            .map(|n| n.created_at_ms)
            .min()
            .unwrap_or(0);
        let latest = self
            .nodes
            .iter()
            .map(|n| n.created_at_ms)
            .max()
            .unwrap_or(0);
        let model = self
            .nodes
            .iter()
            .rev()
            .find_map(|node| node.model.as_ref())
            .map(|info| format!("{}/{}", info.provider, info.model));
        Some(ExportedSession {
            format: EXPORT_FORMAT.to_string(),
            version: EXPORT_VERSION,
            id: meta.id,
            title: meta.title.clone().unwrap_or_default(),
            title_set: meta.title_set,
            origin: Some(meta.origin),
            model,
            fallback: Vec::new(),
            system: meta.system,
            tools_json: None,
            created_at_ms: meta.created_at_ms.unwrap_or(first),
            updated_at_ms: meta.updated_at_ms.unwrap_or(latest).max(latest),
            head,
            redo_top: None,
            nodes: self.nodes,
            moves: Vec::new(),
        })
    }
}

/// A node as a reader found it.
pub(crate) struct NewNode {
    /// Who produced it.
    pub role: Role,
    /// Its content.
    pub parts: Vec<Part>,
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// How a model node was produced.
    pub model: Option<ModelInfo>,
}

/// What a file says of its session as a whole.
#[derive(Default)]
pub(crate) struct SessionMeta {
    /// The file's own id for the session.
    pub id: String,
    /// `import (<tool>: <file>)`.
    pub origin: String,
    /// A title the tool stored, if any.
    pub title: Option<String>,
    /// The user named it.
    pub title_set: bool,
    /// The system instruction, if the file keeps one.
    pub system: Option<String>,
    /// Creation time, when the file says.
    pub created_at_ms: Option<u64>,
    /// Last change, when the file says.
    pub updated_at_ms: Option<u64>,
}

/// How a model node was produced, from what foreign files record.
pub(crate) fn model_info(provider: &str, model: &str, usage: Option<Usage>) -> ModelInfo {
    ModelInfo {
        model: model.to_string(),
        model_version: None,
        finish_reason: None,
        usage,
        attempts: 1,
        latency_ms: 0,
        interrupted: false,
        provider: provider.to_string(),
    }
}

/// A `u64` token count narrowed to the `u32` Omni keeps (saturating).
pub(crate) fn tokens(value: &serde_json::Value) -> u32 {
    value
        .as_u64()
        .map_or(0, |count| u32::try_from(count).unwrap_or(u32::MAX))
}

/// A part without a thought signature.
pub(crate) fn part(content: omni_proto::PartContent) -> Part {
    Part {
        content,
        thought_signature: None,
    }
}
