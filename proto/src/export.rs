//! Omni's own export format: one session's whole tree as JSON (`omnictl export --format
//! json`), which `omnictl import` reads back into an identical tree. The readers of other
//! tools' files (Claude Code, gemini-cli, Codex) produce the same shape, so every import
//! goes through one path in the daemon. The JSON Schema in `docs/` is generated from these
//! types; field names are a contract.

use serde::{Deserialize, Serialize};

use crate::view::{ModelInfo, Part, Role};

/// The `format` every export carries, so a reader can tell an Omni export from anything else.
pub const EXPORT_FORMAT: &str = "omni.session";

/// The export format's version: a reader refuses a newer one by name.
pub const EXPORT_VERSION: u32 = 1;

/// One session: its settings, every node on every branch, the move log and the head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedSession {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// [`EXPORT_VERSION`] of the writer.
    pub version: u32,
    /// The session's id (a UUID) in the store it came from; a foreign file's own id, if any.
    pub id: String,
    /// The session's title.
    pub title: String,
    /// The title was set by the user rather than taken from the first prompt.
    #[serde(default)]
    pub title_set: bool,
    /// Where the conversation came from: `None` for one held through omnid itself,
    /// `anthropic proxy (claude-cli/...)` for a recorded one, `import (claude-code: FILE)`
    /// for an imported one.
    pub origin: Option<String>,
    /// The model the session asks (`PROVIDER/MODEL`), when it has its own.
    pub model: Option<String>,
    /// Models asked in turn when that one cannot answer.
    #[serde(default)]
    pub fallback: Vec<String>,
    /// The system instruction sent with every request, if any.
    pub system: Option<String>,
    /// Function declarations (a JSON array, as text) sent with every request, if any.
    pub tools_json: Option<String>,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// Last change, ms since the epoch.
    pub updated_at_ms: u64,
    /// The node the conversation continues from (0 = the empty start).
    pub head: u64,
    /// The undo-type move that `redo` would take back, if any.
    #[serde(default)]
    pub redo_top: Option<u64>,
    /// Every node, numbered from 1 in creation order; a parent always comes before its
    /// children.
    pub nodes: Vec<ExportedNode>,
    /// The move log, in order (empty for a foreign file: its head is `head`).
    #[serde(default)]
    pub moves: Vec<ExportedMove>,
}

/// One node of an exported tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedNode {
    /// The node's number within its session, from 1.
    pub id: u64,
    /// Its parent (0 = the empty start).
    pub parent: u64,
    /// Who produced it.
    pub role: Role,
    /// Its content, every part as stored.
    pub parts: Vec<Part>,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// How a model node was produced (model, provider, usage).
    pub model: Option<ModelInfo>,
}

/// Why the head moved, as the export names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportedMoveKind {
    /// A new prompt became the head.
    Prompt,
    /// A model answer became the head.
    Answer,
    /// `undo`.
    Undo,
    /// `back`.
    Back,
    /// `redo`.
    Redo,
    /// `checkout`.
    Checkout,
    /// Function results became the head.
    ToolResults,
    /// Recovery by deep rollback.
    DeepRollback,
    /// Recovery by clearing the last node.
    ClearTurn,
    /// Recovery by ignoring the failure.
    Ignore,
    /// Recovery by sending the same context again.
    Retry,
}

/// One entry of an exported move log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedMove {
    /// Position in the log, from 1.
    pub seq: u64,
    /// What kind of move.
    pub kind: ExportedMoveKind,
    /// The head before.
    pub from: u64,
    /// The head after.
    pub to: u64,
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// For undo-type moves: the redo candidate below this one.
    pub prev_redoable: Option<u64>,
    /// For `redo`: the move it took back.
    pub redoes: Option<u64>,
}
