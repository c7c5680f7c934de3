//! Data the daemon shows to clients: parts, transcript entries, branches, sessions, status.
//!
//! These types also derive serde for `omnictl --json`, so field names are part of the CLI
//! contract. Keep JSON payloads (function arguments) as JSON *strings*: bincode cannot carry
//! `serde_json::Value`.

use serde::{Deserialize, Serialize};

use crate::model_info::ModelInfo;
use crate::ops::MoveOp;

/// Who produced a node of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A prompt typed by the user.
    User,
    /// An answer from the model.
    Model,
    /// The results of the model's function calls, sent back on the user's side.
    Tool,
    /// A compaction's summary: it stands for the nodes it covers in the model's context.
    Summary,
}

impl Role {
    /// The lowercase name used in transcripts and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Model => "model",
            Role::Tool => "tool",
            Role::Summary => "summary",
        }
    }
}

/// One part of a node's content, stored exactly as it arrived from the model so it can be
/// sent back unchanged (Gemini rejects function calls whose thought signature was dropped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Part {
    /// What the part holds.
    pub content: PartContent,
    /// The opaque `thoughtSignature` that arrived on this very part, if any.
    pub thought_signature: Option<String>,
}

impl Part {
    /// A plain text part without a signature.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: PartContent::Text(text.into()),
            thought_signature: None,
        }
    }
}

/// The kinds of content a part can carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PartContent {
    /// Visible text.
    Text(String),
    /// A thought summary (`"thought": true`).
    Thought(String),
    /// A function call the model asked for.
    FunctionCall {
        /// The call's id, when the API gave one.
        id: Option<String>,
        /// The function's name.
        name: String,
        /// The arguments as a JSON object, kept as text.
        args_json: String,
    },
    /// The result of a function call, sent back to the model.
    FunctionResponse {
        /// The id of the call this answers, when the call had one.
        id: Option<String>,
        /// The function's name.
        name: String,
        /// The response object as JSON text.
        response_json: String,
    },
    /// A part of a kind Omni does not interpret, kept as its raw JSON.
    Other {
        /// The part's JSON, exactly as received.
        json: String,
    },
    /// On a summary node: where the model's context resumes after it. Never sent to a
    /// model as a part (the summary's text is).
    Compaction {
        /// The first node kept after the summary (the context goes on from there to the
        /// summary's parent); `None`: nothing was kept.
        resumes_at: Option<u64>,
        /// The instructions the summary was written with, if any.
        instructions: Option<String>,
    },
}

/// Why a node is out of the context, as the transcript shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RevertReason {
    /// `undo` took the answer out.
    Undone,
    /// `back` took the whole round out.
    Rewound,
    /// The head went to another branch (`checkout`, `redo`, or a prompt sent from elsewhere).
    OtherBranch,
    /// The answer was cut short (a cancel or a shutdown) and never entered the context.
    Interrupted,
    /// A recovery choice (deep rollback or clear turn) took it out.
    Recovered,
}

impl RevertReason {
    /// The word a transcript shows.
    pub fn as_str(self) -> &'static str {
        match self {
            RevertReason::Undone => "undone",
            RevertReason::Rewound => "rewound",
            RevertReason::OtherBranch => "on another branch",
            RevertReason::Interrupted => "interrupted",
            RevertReason::Recovered => "recovered",
        }
    }
}

/// One node of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Entry {
    /// The node's number within its session.
    pub id: u64,
    /// The parent node, or `None` at the start of the conversation.
    pub parent: Option<u64>,
    /// Who produced it.
    pub role: Role,
    /// The visible text (thoughts and calls excluded).
    pub text: String,
    /// Every part, as stored.
    pub parts: Vec<Part>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Not on the path to the head, so not part of the model's context.
    pub reverted: bool,
    /// Why a reverted node is out of the context (the latest move that took it out).
    pub why_reverted: Option<RevertReason>,
    /// How a model node was produced.
    pub model: Option<ModelInfo>,
    /// On the path to the head but covered by a compaction's summary: kept, searchable,
    /// one `undo` away, but not in the model's context.
    pub compacted: bool,
    /// For a summary: what it stands for.
    pub compaction: Option<crate::context::Compaction>,
    /// A recorded prompt that is another client's own compaction (its summary of an
    /// earlier conversation): the conversation it continues lives on elsewhere.
    pub client_compaction: bool,
}

/// A session's transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HistoryView {
    /// The session's id.
    pub session: String,
    /// The node the conversation continues from (0 = the empty start).
    pub head: u64,
    /// Nodes in creation order.
    pub entries: Vec<Entry>,
    /// Set when the session's records disagree: what is wrong. It is shown as stored, and
    /// takes no changes.
    pub damaged: Option<String>,
    /// The tokens and cost of every answer stored in the session, on any branch.
    pub usage: crate::usage::UsageTotals,
    /// How full the context at the head is.
    pub context: crate::context::ContextGauge,
    /// When this is a page with entries before it: the `before` that asks for the page
    /// before it (its first entry's node).
    #[serde(default)]
    pub earlier: Option<u64>,
}

/// The shape of a session's whole tree: each node's place, none of its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TreeShape {
    /// The session's id.
    pub session: String,
    /// The node the conversation continues from (0 = the empty start).
    pub head: u64,
    /// Every node, in creation order.
    pub nodes: Vec<TreeNode>,
}

/// One node of a [`TreeShape`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TreeNode {
    /// The node's number.
    pub id: u64,
    /// Its parent (`None` at the start of the conversation).
    pub parent: Option<u64>,
    /// Who produced it.
    pub role: Role,
    /// Off the path to the head.
    pub reverted: bool,
    /// On the path but covered by a compaction's summary.
    pub compacted: bool,
}

/// A completed, durably stored answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Answer {
    /// The session's id.
    pub session: String,
    /// The prompt's node.
    pub prompt_node: u64,
    /// Every prompt this answer replies to, oldest first: more than one when a pending
    /// prompt was kept and sent with the new one; none when it answers function results.
    pub prompts: Vec<u64>,
    /// The answer's node (the new head).
    pub node: u64,
    /// The answer's visible text.
    pub text: String,
    /// How it was produced.
    pub model: ModelInfo,
    /// Function calls in the answer, which now wait for results (`omnictl tool-result`).
    pub pending_calls: Vec<crate::recovery::PendingCall>,
    /// The session's running total, this answer included.
    pub session_usage: crate::usage::UsageTotals,
    /// How full the context is now, this answer included.
    pub context: crate::context::ContextGauge,
}

/// The result of a head move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MoveOutcome {
    /// The session's id.
    pub session: String,
    /// The move that was made.
    pub op: MoveOp,
    /// The head before.
    pub from: u64,
    /// The head after.
    pub to: u64,
    /// The new head's role and first line of text, so the user sees where they are.
    pub head_summary: String,
}

/// One leaf of a session's tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Branch {
    /// The leaf node.
    pub leaf: u64,
    /// Nodes on the path from the start to the leaf.
    pub length: u32,
    /// The leaf's role.
    pub role: Role,
    /// The last line of the leaf's text.
    pub last_line: String,
    /// The head is on this branch (the leaf or one of its ancestors).
    pub contains_head: bool,
    /// The node where this branch parts from the others (0 = the start); `None` when no
    /// other branch shares its path.
    pub forks_at: Option<u64>,
}

/// Every leaf of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BranchList {
    /// The session's id.
    pub session: String,
    /// The current head.
    pub head: u64,
    /// The leaves, in creation order.
    pub branches: Vec<Branch>,
}

/// One line of `omnictl sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionSummary {
    /// The session's id.
    pub id: String,
    /// The first line of the first prompt.
    pub title: String,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// Last change, ms since the epoch.
    pub updated_at_ms: u64,
    /// Nodes in the tree.
    pub nodes: u64,
    /// The current head.
    pub head: u64,
    /// This is the most recently used session (the default for `-s`).
    pub current: bool,
    /// Sends that failed in a row (reset by any success).
    pub consecutive_failures: u32,
    /// The session is suspended: sends are refused until `omnictl resume`.
    pub suspended: bool,
    /// Why the session needs recovery, if it does (sends are refused until
    /// `omnictl recover`).
    pub needs_recovery: Option<String>,
    /// When the session needs recovery: what each way out would take out of the context.
    pub recovery_choices: Vec<crate::recovery::RecoveryPreview>,
    /// Function calls waiting for results at the head.
    pub pending_calls: Vec<crate::recovery::PendingCall>,
    /// The session declares tools.
    pub has_tools: bool,
    /// Set when the session's records disagree: what is wrong (it takes no changes).
    pub damaged: Option<String>,
    /// Where a session recorded from elsewhere came from (`proxy (USER-AGENT)`); `None`
    /// for one a client of omnid made.
    pub origin: Option<String>,
    /// The model its next send asks, `PROVIDER/MODEL` (its own, else the daemon's).
    pub model: String,
    /// The models asked in turn when that one cannot answer.
    pub fallback: Vec<String>,
    /// The tokens and cost of every answer stored in the session, on any branch.
    pub usage: crate::usage::UsageTotals,
    /// The title was given by the user (`rename`) rather than taken from the first prompt.
    pub title_set: bool,
    /// Where it came from, as a kind: own, proxy or import.
    pub origin_kind: crate::origin::OriginKind,
    /// When it was archived (hidden from listings), ms since the epoch.
    pub archived_at_ms: Option<u64>,
    /// When it was moved to the trash, ms since the epoch.
    pub deleted_at_ms: Option<u64>,
    /// How full the context at the head is.
    pub context: crate::context::ContextGauge,
    /// Whether `redo` would take a move back now (an undo, back or rollback since the last
    /// prompt or checkout, the head still where it left it).
    #[serde(default)]
    pub can_redo: bool,
}

/// A failed attempt that will be retried: what the client shows while it waits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RetryNotice {
    /// The attempt that failed (from 1).
    pub attempt: u32,
    /// The attempt budget.
    pub max_attempts: u32,
    /// The failure's class (`overloaded`, `rate_limited`, `network`, ...).
    pub class: String,
    /// What went wrong, with the API's own message.
    pub message: String,
    /// How long until the next attempt.
    pub wait_ms: u64,
    /// Text of the failed attempt had already been sent and is now discarded.
    pub discarded_partial: bool,
    /// The model asked next instead (`PROVIDER/MODEL`): the failing one cannot answer
    /// (quota exhausted, circuit breaker open, overloaded through every retry).
    pub fallback_to: Option<String>,
}
