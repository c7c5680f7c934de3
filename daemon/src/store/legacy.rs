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
    pub(super) id: Uuid,
    pub(super) title: String,
    pub(super) created_at_ms: u64,
    pub(super) updated_at_ms: u64,
    pub(super) head: u64,
    pub(super) nodes: u64,
    pub(super) moves: u64,
    pub(super) redo_top: Option<u64>,
}

/// Format 2: format 1 plus failure counting and suspension.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRecordV2 {
    pub(super) v1: SessionRecordV1,
    pub(super) consecutive_failures: u32,
    pub(super) suspended: Option<Suspension>,
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
    pub(super) v2: SessionRecordV2,
    pub(super) tools_json: Option<String>,
    pub(super) needs_recovery: Option<Recovery>,
    pub(super) tool_results: Option<ToolResults>,
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

impl From<SessionRecordV3> for SessionRecord {
    fn from(v3: SessionRecordV3) -> Self {
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
            model: None,
            fallback: Vec::new(),
            system: None,
        }
    }
}

/// How a model node was produced, as node format 1 kept it (before providers had names).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelInfoV1 {
    pub(super) model: String,
    pub(super) model_version: Option<String>,
    pub(super) finish_reason: Option<String>,
    pub(super) usage: Option<Usage>,
    pub(super) attempts: u32,
    pub(super) latency_ms: u64,
    pub(super) interrupted: bool,
}

/// A node as format 1 wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeRecordV1 {
    pub(super) id: u64,
    pub(super) parent: u64,
    pub(super) role: Role,
    pub(super) parts: Vec<Part>,
    pub(super) created_at_ms: u64,
    pub(super) model: Option<ModelInfoV1>,
}

/// The provider every format-1 answer came from: Gemini was the only one.
pub const FORMAT_1_PROVIDER: &str = "gemini";

impl From<NodeRecordV1> for NodeRecord {
    fn from(old: NodeRecordV1) -> Self {
        NodeRecord {
            id: old.id,
            parent: old.parent,
            role: old.role,
            parts: old.parts,
            created_at_ms: old.created_at_ms,
            model: old.model.map(|m| ModelInfo {
                model: m.model,
                model_version: m.model_version,
                finish_reason: m.finish_reason,
                usage: m.usage,
                attempts: m.attempts,
                latency_ms: m.latency_ms,
                interrupted: m.interrupted,
                provider: FORMAT_1_PROVIDER.to_string(),
            }),
        }
    }
}
