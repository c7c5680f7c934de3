//! What the store keeps for a session: its record, its nodes and its move log.
//!
//! These are encoded with bincode behind a format-version byte (see `store/codec.rs`).
//! bincode is not self-describing: changing a field here changes the stored bytes, so bump
//! the store's format version and add a migration when you do.

use omni_proto::{ModelInfo, Part, PartContent, Role};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::session::tree::{NodeId, ROOT};

/// A session's identity, counters and head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The session's id.
    pub id: Uuid,
    /// The first line of the first prompt, for listings.
    pub title: String,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// Last change, ms since the epoch.
    pub updated_at_ms: u64,
    /// The node the conversation continues from.
    pub head: NodeId,
    /// Nodes in the tree (the highest node number).
    pub nodes: u64,
    /// Moves in the move log (the highest move sequence number).
    pub moves: u64,
    /// The undo-type move that `redo` would take back, if any.
    pub redo_top: Option<u64>,
    /// Sends that failed (after their retries) in a row; any success resets it.
    pub consecutive_failures: u32,
    /// Set when too many sends failed in a row: sends are refused until resumed.
    pub suspended: Option<Suspension>,
}

/// Why and when a session was suspended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suspension {
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// The last failure's message.
    pub last_error: String,
}

impl SessionRecord {
    /// A new, empty session.
    pub fn new(id: Uuid, now_ms: u64) -> Self {
        Self {
            id,
            title: String::new(),
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            head: ROOT,
            nodes: 0,
            moves: 0,
            redo_top: None,
            consecutive_failures: 0,
            suspended: None,
        }
    }
}

/// One turn of the conversation: a prompt, an answer, or function results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRecord {
    /// The node's number.
    pub id: NodeId,
    /// Its parent ([`ROOT`] for the first prompt of a branch from the start).
    pub parent: NodeId,
    /// Who produced it.
    pub role: Role,
    /// Its content, exactly as received.
    pub parts: Vec<Part>,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// How a model node was produced.
    pub model: Option<ModelInfo>,
}

impl NodeRecord {
    /// The visible text: every text part, thoughts and calls excluded.
    pub fn text(&self) -> String {
        visible_text(&self.parts)
    }
}

/// The visible text of some parts: every text part, thoughts and calls excluded.
pub fn visible_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Why the head moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveKind {
    /// A new prompt became the head.
    Prompt,
    /// A model answer became the head.
    Answer,
    /// `undo`: back to the latest prompt.
    Undo,
    /// `back`: to the parent of the latest prompt.
    Back,
    /// `redo`: an undo-type move taken back.
    Redo,
    /// `checkout N`.
    Checkout,
}

impl MoveKind {
    /// Undo-type moves can be taken back with `redo`.
    pub fn is_undo_type(self) -> bool {
        matches!(self, MoveKind::Undo | MoveKind::Back)
    }
}

/// One entry of the append-only move log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// Position in the log, from 1.
    pub seq: u64,
    /// What kind of move.
    pub kind: MoveKind,
    /// The head before.
    pub from: NodeId,
    /// The head after.
    pub to: NodeId,
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// For undo-type moves: the redo candidate below this one (a linked stack, so redo
    /// costs one lookup whatever the log's length).
    pub prev_redoable: Option<u64>,
    /// For `redo`: the move it took back.
    pub redoes: Option<u64>,
}
