//! What the store keeps for a session: its record, its nodes and its move log.
//!
//! These are encoded with bincode behind a format-version byte (see `store/sled/codec.rs`).
//! bincode is not self-describing: changing a field here changes the stored bytes (the
//! store's golden-bytes tests say so), so bump the store's format version and add a
//! migration when you do.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::part::{ModelInfo, Part, PartContent, Role, visible_text};

/// A node's number within its session.
pub type NodeId = u64;

/// The empty start of every conversation; the head of a new session.
pub const ROOT: NodeId = 0;

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
    /// Function declarations (a JSON array) sent with every request, if any.
    pub tools_json: Option<String>,
    /// Set after a 400 or a preflight violation: sends are refused until a recovery choice.
    pub needs_recovery: Option<Recovery>,
    /// Results submitted so far for the function calls at the head.
    pub tool_results: Option<ToolResults>,
    /// The model this session asks (`MODEL` or `PROVIDER/MODEL`); `None`: the daemon's.
    pub model: Option<String>,
    /// Models asked in turn when the session's own cannot answer; empty: the daemon's.
    pub fallback: Vec<String>,
    /// The system instruction sent with every request, if any.
    pub system: Option<String>,
    /// The title was given by the user (`rename`): the first prompt no longer sets it.
    pub title_set: bool,
    /// When the session was archived: hidden from listings, still found by search.
    pub archived_at_ms: Option<u64>,
    /// When it was moved to the trash: gone from listings and search until restored, and
    /// purged for good once the trash keeps it no longer.
    pub deleted_at_ms: Option<u64>,
    /// Tokens of every answer stored in the session, on any branch, per model.
    pub usage: Vec<ModelUsage>,
}

/// Token counts summed over a session's answers from one model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// The model as the answers name it (`PROVIDER/MODEL`).
    pub model: String,
    /// Answers counted.
    pub answers: u64,
    /// Tokens of the contexts sent (cached ones included).
    pub input: u64,
    /// Of those, tokens read from the provider's prompt cache.
    pub cached: u64,
    /// Tokens of the answers.
    pub output: u64,
    /// Tokens spent thinking.
    pub thinking: u64,
}

/// Why a session needs recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recovery {
    /// What went wrong, naming the offending nodes where known.
    pub reason: String,
    /// The diagnostic record of the failure, if one was written.
    pub error_id: Option<String>,
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// Where deep rollback goes when the poison lies in an older round than the last
    /// prompt's (a preflight violation names its nodes): before that round. Otherwise deep
    /// rollback drops the last prompt's round.
    pub rollback_to: Option<NodeId>,
}

/// Results collected for the function calls of one model node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResults {
    /// The model node whose calls they answer.
    pub node: NodeId,
    /// (index of the call among the node's calls, the response as JSON text).
    pub results: Vec<(u32, String)>,
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
            tools_json: None,
            needs_recovery: None,
            tool_results: None,
            model: None,
            fallback: Vec::new(),
            system: None,
            title_set: false,
            archived_at_ms: None,
            deleted_at_ms: None,
            usage: Vec::new(),
        }
    }
}

impl SessionRecord {
    /// Adds one answer's tokens to the session's totals for its model.
    pub fn count_usage(&mut self, info: &ModelInfo) {
        ModelUsage::count(&mut self.usage, info);
    }
}

impl ModelUsage {
    /// Adds one answer's tokens to `totals`, in the entry of its model (`PROVIDER/MODEL`).
    /// An answer without usage counts as an answer with no tokens.
    pub fn count(totals: &mut Vec<ModelUsage>, info: &ModelInfo) {
        let mut one = ModelUsage {
            model: format!("{}/{}", info.provider, info.model),
            answers: 1,
            ..ModelUsage::default()
        };
        if let Some(usage) = info.usage {
            one.input = u64::from(usage.prompt_tokens);
            one.cached = u64::from(usage.cached_tokens);
            one.output = u64::from(usage.answer_tokens);
            one.thinking = u64::from(usage.thought_tokens);
        }
        Self::add(totals, &one);
    }

    /// Adds `more` to `totals`, in the entry of its model.
    pub fn add(totals: &mut Vec<ModelUsage>, more: &ModelUsage) {
        match totals.iter_mut().find(|u| u.model == more.model) {
            Some(entry) => {
                entry.answers += more.answers;
                entry.input += more.input;
                entry.cached += more.cached;
                entry.output += more.output;
                entry.thinking += more.thinking;
            }
            None => totals.push(more.clone()),
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

    /// For a summary: the first node it kept whole after it (`None`: none, or not a
    /// summary).
    pub fn resumes_at(&self) -> Option<NodeId> {
        self.parts.iter().find_map(|part| match part.content {
            PartContent::Compaction { resumes_at, .. } => resumes_at,
            _ => None,
        })
    }
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
    /// Function results became the head.
    ToolResults,
    /// Recovery by deep rollback (the head goes where `back` would take it).
    DeepRollback,
    /// Recovery by clearing the last node.
    ClearTurn,
    /// Recovery by ignoring the failure (the head stays).
    Ignore,
    /// Recovery by sending the same context again (the head stays).
    Retry,
    /// A compaction: its summary became the head.
    Compact,
}

impl MoveKind {
    /// Undo-type moves can be taken back with `redo`.
    pub fn is_undo_type(self) -> bool {
        match self {
            MoveKind::Undo | MoveKind::Back | MoveKind::DeepRollback | MoveKind::ClearTurn => true,
            MoveKind::Prompt
            | MoveKind::Answer
            | MoveKind::Redo
            | MoveKind::Checkout
            | MoveKind::ToolResults
            | MoveKind::Ignore
            | MoveKind::Retry
            | MoveKind::Compact => false,
        }
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
