//! Older shapes of stored records, and how each becomes the current one. Nothing is ever
//! rewritten in place: old values are converted when read, and written in the current
//! format the next time they change.
//!
//! bincode writes a nested struct's fields in line, so each format can be written as the
//! one before it plus what it added.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::{SessionRecord, Suspension};

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

impl From<SessionRecordV2> for SessionRecord {
    fn from(old: SessionRecordV2) -> Self {
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
            tools_json: None,
            needs_recovery: None,
            tool_results: None,
        }
    }
}
