//! Older shapes of stored records, and how each becomes the current one. Nothing is ever
//! rewritten in place: old values are converted when read, and written in the current
//! format the next time they change.
//!
//! bincode writes a nested struct's fields in line, so each format can be written as the
//! one before it plus what it added.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::{
    ModelInfo, NodeRecord, Part, Recovery, Role, SessionRecord, Suspension, ToolResults, Usage,
};

/// A session record as format 1 wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRecordV1 {
    pub(in crate::store) id: Uuid,
    pub(in crate::store) title: String,
    pub(in crate::store) created_at_ms: u64,
    pub(in crate::store) updated_at_ms: u64,
    pub(in crate::store) head: u64,
    pub(in crate::store) nodes: u64,
    pub(in crate::store) moves: u64,
    pub(in crate::store) redo_top: Option<u64>,
}

/// Format 2: format 1 plus failure counting and suspension.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRecordV2 {
    pub(in crate::store) v1: SessionRecordV1,
    pub(in crate::store) consecutive_failures: u32,
    pub(in crate::store) suspended: Option<Suspension>,
}

impl From<SessionRecordV1> for SessionRecordV2 {
    fn from(v1: SessionRecordV1) -> Self {
        SessionRecordV2 {
            v1,
            consecutive_failures: 0,
            suspended: None,
        }
    }
}

/// Format 3: format 2 plus tools and recovery.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRecordV3 {
    pub(in crate::store) v2: SessionRecordV2,
    pub(in crate::store) tools_json: Option<String>,
    pub(in crate::store) needs_recovery: Option<Recovery>,
    pub(in crate::store) tool_results: Option<ToolResults>,
}

impl From<SessionRecordV2> for SessionRecordV3 {
    fn from(v2: SessionRecordV2) -> Self {
        SessionRecordV3 {
            v2,
            tools_json: None,
            needs_recovery: None,
            tool_results: None,
        }
    }
}

/// Format 4: format 3 plus the session's model, fallback chain and system instruction.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRecordV4 {
    pub(in crate::store) v3: SessionRecordV3,
    pub(in crate::store) model: Option<String>,
    pub(in crate::store) fallback: Vec<String>,
    pub(in crate::store) system: Option<String>,
}

impl From<SessionRecordV3> for SessionRecordV4 {
    fn from(v3: SessionRecordV3) -> Self {
        SessionRecordV4 {
            v3,
            model: None,
            fallback: Vec::new(),
            system: None,
        }
    }
}

impl From<SessionRecordV4> for SessionRecord {
    fn from(v4: SessionRecordV4) -> Self {
        let v3 = v4.v3;
        let old = v3.v2;
        let v1 = old.v1;
        SessionRecord {
            id: v1.id,
            title: v1.title,
            created_at_ms: v1.created_at_ms,
            updated_at_ms: v1.updated_at_ms,
            head: v1.head,
            nodes: v1.nodes,
            moves: v1.moves,
            redo_top: v1.redo_top,
            consecutive_failures: old.consecutive_failures,
            suspended: old.suspended,
            tools_json: v3.tools_json,
            needs_recovery: v3.needs_recovery,
            tool_results: v3.tool_results,
            model: v4.model,
            fallback: v4.fallback,
            system: v4.system,
            title_set: false,
            archived_at_ms: None,
            deleted_at_ms: None,
            usage: Vec::new(),
        }
    }
}

/// Token counts as node formats 1 and 2 kept them (before cached tokens).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct UsageV1 {
    pub(in crate::store) prompt_tokens: u32,
    pub(in crate::store) answer_tokens: u32,
    pub(in crate::store) thought_tokens: u32,
    pub(in crate::store) total_tokens: u32,
}

impl From<UsageV1> for Usage {
    fn from(old: UsageV1) -> Self {
        Usage {
            prompt_tokens: old.prompt_tokens,
            answer_tokens: old.answer_tokens,
            thought_tokens: old.thought_tokens,
            total_tokens: old.total_tokens,
            cached_tokens: 0,
        }
    }
}

/// How a model node was produced, as node format 1 kept it (before providers had names).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelInfoV1 {
    pub(in crate::store) model: String,
    pub(in crate::store) model_version: Option<String>,
    pub(in crate::store) finish_reason: Option<String>,
    pub(in crate::store) usage: Option<UsageV1>,
    pub(in crate::store) attempts: u32,
    pub(in crate::store) latency_ms: u64,
    pub(in crate::store) interrupted: bool,
}

/// How a model node was produced, as node format 2 kept it: format 1 plus the provider.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelInfoV2 {
    pub(in crate::store) v1: ModelInfoV1,
    pub(in crate::store) provider: String,
}

/// A node as format 1 wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeRecordV1 {
    pub(in crate::store) id: u64,
    pub(in crate::store) parent: u64,
    pub(in crate::store) role: Role,
    pub(in crate::store) parts: Vec<Part>,
    pub(in crate::store) created_at_ms: u64,
    pub(in crate::store) model: Option<ModelInfoV1>,
}

/// The provider every format-1 answer came from: Gemini was the only one.
pub const FORMAT_1_PROVIDER: &str = "gemini";

/// A node as format 2 wrote it: format 1 with the provider that answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeRecordV2 {
    pub(in crate::store) id: u64,
    pub(in crate::store) parent: u64,
    pub(in crate::store) role: Role,
    pub(in crate::store) parts: Vec<Part>,
    pub(in crate::store) created_at_ms: u64,
    pub(in crate::store) model: Option<ModelInfoV2>,
}

impl From<NodeRecordV1> for NodeRecordV2 {
    fn from(old: NodeRecordV1) -> Self {
        NodeRecordV2 {
            id: old.id,
            parent: old.parent,
            role: old.role,
            parts: old.parts,
            created_at_ms: old.created_at_ms,
            model: old.model.map(|v1| ModelInfoV2 {
                v1,
                provider: FORMAT_1_PROVIDER.to_string(),
            }),
        }
    }
}

impl From<NodeRecordV2> for NodeRecord {
    fn from(old: NodeRecordV2) -> Self {
        NodeRecord {
            id: old.id,
            parent: old.parent,
            role: old.role,
            parts: old.parts,
            created_at_ms: old.created_at_ms,
            model: old.model.map(|m| ModelInfo {
                model: m.v1.model,
                model_version: m.v1.model_version,
                finish_reason: m.v1.finish_reason,
                usage: m.v1.usage.map(Usage::from),
                attempts: m.v1.attempts,
                latency_ms: m.v1.latency_ms,
                interrupted: m.v1.interrupted,
                provider: m.provider,
            }),
        }
    }
}
