//! Wire types for the context window: how full a session's context is, and what a
//! compaction did. A compaction is a move in the tree: a summary node stands for the
//! nodes it covers, which stay in the session, in search and in exports.

use serde::{Deserialize, Serialize};

use crate::model_info::ModelInfo;

/// Where the size of a model's context window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WindowSource {
    /// The configuration file's `[windows]` table.
    Config,
    /// The model API said so (Gemini's `inputTokenLimit`).
    Api,
    /// Omni's table of common models' windows.
    Known,
}

/// How full the context at a session's head is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ContextGauge {
    /// Tokens the next request's context holds: the last answer's reported usage plus an
    /// estimate for what was added since (corrected by the next answer).
    pub tokens: u64,
    /// Of those, how many are an estimate (0: exactly as the API counted them).
    pub estimated: u64,
    /// The model the gauge is measured against (`PROVIDER/MODEL`).
    pub model: String,
    /// The model's input window in tokens; `None`: unknown (never guessed).
    pub window: Option<u64>,
    /// Where the window's size came from.
    pub window_source: Option<WindowSource>,
    /// `tokens` as a percentage of the window, when it is known.
    pub percent: Option<u32>,
    /// Set once the context passes `context.warn_at`: what to do about it.
    pub warning: Option<String>,
}

/// What a summary node stands for (on a transcript entry whose role is `summary`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Compaction {
    /// The nodes it covers, in the order the model saw them.
    pub covers: Vec<u64>,
    /// The first node kept after it (the model's context goes on from there up to the
    /// summary's parent); `None`: nothing was kept.
    pub resumes_at: Option<u64>,
    /// The instructions the summary was written with, if any.
    pub instructions: Option<String>,
}

/// What a compaction did: the summary it stored and what it covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Compacted {
    /// The session's id.
    pub session: String,
    /// The summary's node (the new head).
    pub node: u64,
    /// The head before (where `undo` goes back to: the full context).
    pub from: u64,
    /// The nodes the summary covers, in context order.
    pub covers: Vec<u64>,
    /// The first node kept after the summary, if any.
    pub resumes_at: Option<u64>,
    /// The summary's text.
    pub text: String,
    /// The model that wrote it, with its usage.
    pub model: ModelInfo,
    /// The context before the compaction.
    pub before: ContextGauge,
    /// The context after it.
    pub after: ContextGauge,
}

/// A compaction is starting (progress of a compact request, or of a send that compacts
/// by itself first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Compacting {
    /// The session's id.
    pub session: String,
    /// How many nodes the summary will cover.
    pub covers: u64,
    /// The model asked to write it (`PROVIDER/MODEL`).
    pub model: String,
    /// Why: `asked` (a client asked), `auto` (`context.auto_compact`) or `recovery`.
    pub why: String,
}
