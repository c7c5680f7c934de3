//! Wire types for tool calls, recovery and diagnostics.

use serde::{Deserialize, Serialize};

/// A function call the model made and that still waits for its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PendingCall {
    /// The call's id, when the model gave one.
    pub id: Option<String>,
    /// The function's name.
    pub name: String,
    /// Its arguments, as JSON text.
    pub args_json: String,
    /// A result was already submitted for it.
    pub answered: bool,
}

/// The ways out of *needs recovery*. Each is a move in the tree, so nothing is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryAction {
    /// Head to the parent of the last user prompt: the prompt and its tool chain leave the
    /// context.
    Deep,
    /// Head one node up: only the last node leaves the context.
    Clear,
    /// Keep the history as it is; just clear the state.
    Ignore,
    /// Send the same context again.
    Retry,
    /// Summarise the older turns (they stay in the tree), then send again.
    Compact,
}

impl RecoveryAction {
    /// The flag that selects it (`--deep`, ...).
    pub fn flag(self) -> &'static str {
        match self {
            RecoveryAction::Deep => "--deep",
            RecoveryAction::Clear => "--clear",
            RecoveryAction::Ignore => "--ignore",
            RecoveryAction::Retry => "--retry",
            RecoveryAction::Compact => "--compact",
        }
    }

    /// One line saying what it does.
    pub fn explanation(self) -> &'static str {
        match self {
            RecoveryAction::Deep => {
                "deep rollback: drop the last prompt and its whole tool chain from the context"
            }
            RecoveryAction::Clear => "clear turn: drop only the last node from the context",
            RecoveryAction::Ignore => "ignore: keep the history as it is and clear the state",
            RecoveryAction::Retry => "retry: send the same context again",
            RecoveryAction::Compact => {
                "compact: summarise the older turns (kept in the tree, one undo away), then \
                 send again"
            }
        }
    }

    /// All of them, in menu order.
    pub const ALL: [RecoveryAction; 5] = [
        RecoveryAction::Compact,
        RecoveryAction::Deep,
        RecoveryAction::Clear,
        RecoveryAction::Ignore,
        RecoveryAction::Retry,
    ];
}

/// What one way out of *needs recovery* would do, shown before the user picks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecoveryPreview {
    /// The way out.
    pub action: RecoveryAction,
    /// Where the head would be afterwards.
    pub head_after: u64,
    /// The nodes it would take out of the context, deepest first (none for ignore and retry).
    pub drops: Vec<u64>,
    /// For compact: the nodes its summary would cover (they stay in the tree).
    pub covers: Vec<u64>,
    /// The choice fits this failure best (compact, when the context is too long).
    pub first: bool,
}

/// The outcome of a recovery move (for `--retry`, the answer arrives as an `Answered`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recovered {
    /// The session's id.
    pub session: String,
    /// What was done.
    pub action: RecoveryAction,
    /// The head before.
    pub from: u64,
    /// The head after.
    pub to: u64,
    /// The new head's role and first line.
    pub head_summary: String,
}

/// One recorded error, for `omnictl logs list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorSummary {
    /// The error's id (for `export --error` and `replay`).
    pub id: String,
    /// When, RFC 3339 UTC.
    pub time: String,
    /// The session it happened in.
    pub session: String,
    /// Its class (`bad_request`, `overloaded`, `preflight`, ...).
    pub class: String,
    /// What went wrong.
    pub message: String,
}

/// What happened when a recorded request was sent again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayOutcome {
    /// The replayed error.
    pub error: String,
    /// The request still fails.
    pub still_fails: bool,
    /// The failure's class, if it still fails.
    pub class: Option<String>,
    /// The failure, or the start of the answer it now gets.
    pub summary: String,
}
