//! Older shapes of stored records, and how each becomes the current one. Nothing is ever
//! rewritten in place: old values are converted when read, and written in the current
//! format the next time they change.

use serde::Deserialize;
use uuid::Uuid;

use crate::session::record::SessionRecord;

/// A session record as format 1 wrote it (before failure counting and suspension).
#[derive(Debug, Deserialize)]
pub struct SessionRecordV1 {
    id: Uuid,
    title: String,
    created_at_ms: u64,
    updated_at_ms: u64,
    head: u64,
    nodes: u64,
    moves: u64,
    redo_top: Option<u64>,
}

impl From<SessionRecordV1> for SessionRecord {
    fn from(old: SessionRecordV1) -> Self {
        SessionRecord {
            id: old.id,
            title: old.title,
            created_at_ms: old.created_at_ms,
            updated_at_ms: old.updated_at_ms,
            head: old.head,
            nodes: old.nodes,
            moves: old.moves,
            redo_top: old.redo_top,
            consecutive_failures: 0,
            suspended: None,
        }
    }
}
