//! What the session layer says back: the events of a request as they happen, and the
//! outcome of each kind of change. Its own types, converted to wire types by the server.

use uuid::Uuid;

use super::SessionError;
use super::gauge::Gauge;
use crate::model::{ModelInfo, NodeId, Part};

/// Progress while a request runs, and (for the session's watchers) each change once it is
/// stored. The client that asked sees only the progress (changes are announced with no
/// requester); watchers see everything.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SessionEvent {
    /// The turn to answer (a prompt, or function results) is durably stored.
    PromptStored {
        /// The session.
        session: Uuid,
        /// The turn's node.
        node: NodeId,
    },
    /// More than one prompt goes out in this turn (a pending prompt was kept): these,
    /// oldest first.
    PromptsMerged {
        /// The session.
        session: Uuid,
        /// The prompts' nodes, oldest first.
        prompts: Vec<NodeId>,
    },
    /// A piece of the answer's visible text.
    Text(String),
    /// A piece of the model's thought summary.
    Thought(String),
    /// The model asked for a function call.
    FunctionCall(Part),
    /// An attempt failed (or the circuit breaker is open) and a retry follows a wait.
    Retrying(RetryNotice),
    /// An answer was stored (watchers only).
    Answered(Box<Answer>),
    /// A turn was not answered: failed, cancelled, refused by preflight (watchers only).
    Failed(SessionError),
    /// The head moved (watchers only).
    Moved(MoveOutcome),
    /// A recovery choice moved the head or cleared the state (watchers only).
    Recovered(Recovered),
    /// A suspension was lifted (watchers only).
    Resumed(Uuid),
    /// One function result was stored; these calls still wait (watchers only).
    ToolResultStored(Uuid, Vec<PendingCall>),
    /// A compaction starts: the model is asked for a summary.
    Compacting(Compacting),
    /// A compaction was stored.
    Compacted(Box<Compacted>),
    /// The session's title, model, archive or trash state was stored.
    Changed(Uuid),
}

/// A compaction starting.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Compacting {
    /// The session.
    pub session: Uuid,
    /// How many nodes the summary will cover.
    pub covers: u64,
    /// The model asked to write it (`PROVIDER/MODEL`).
    pub model: String,
    /// Why: `asked`, `auto` or `recovery`.
    pub why: std::borrow::Cow<'static, str>,
}

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Compacted {
    /// The session.
    pub session: Uuid,
    /// The summary's node, the new head.
    pub node: NodeId,
    /// The head before: where `undo` returns to the full context.
    pub from: NodeId,
    /// The nodes the summary covers, in context order.
    pub covers: Vec<NodeId>,
    /// The first node kept whole after it.
    pub resumes_at: Option<NodeId>,
    /// The summary.
    pub text: String,
    /// The model that wrote it.
    pub model: ModelInfo,
    /// The context before.
    pub before: Gauge,
    /// The context after.
    pub after: Gauge,
}

/// What cancelling an answer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancelled {
    /// The session.
    pub session: Uuid,
    /// The turn whose answer was cancelled; the head stays on it.
    pub turn: NodeId,
    /// The interrupted node holding the partial answer (off the context), if anything had
    /// arrived.
    pub kept: Option<NodeId>,
}

pub use crate::exchange::RetryNotice;

/// A function call of the model's turn at the head.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// A completed, durably stored answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    /// The session.
    pub session: Uuid,
    /// The turn it answers.
    pub prompt_node: NodeId,
    /// Every prompt it replies to, oldest first (more than one when a pending prompt was
    /// kept; none for function results).
    pub prompts: Vec<NodeId>,
    /// The answer's node (the new head).
    pub node: NodeId,
    /// Its visible text.
    pub text: String,
    /// How it was produced.
    pub model: ModelInfo,
    /// Function calls in it, which now wait for results.
    pub pending_calls: Vec<PendingCall>,
    /// The session's tokens per model, this answer included.
    pub session_usage: Vec<crate::model::ModelUsage>,
    /// How full the context is now, this answer included.
    pub context: Gauge,
}

/// A head move a client asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HeadOp {
    /// Drop the answer to the latest prompt, keep the prompt.
    Undo,
    /// Take back the last undo-type move.
    Redo,
    /// Drop the latest whole round.
    Back,
    /// Continue from this node.
    Checkout(NodeId),
}

/// Where a head move went.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveOutcome {
    /// The session.
    pub session: Uuid,
    /// The move.
    pub op: HeadOp,
    /// The head before.
    pub from: NodeId,
    /// The head after.
    pub to: NodeId,
    /// The new head's role and first line.
    pub head_summary: String,
}

/// The ways out of *needs recovery*; each is a move, so nothing is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RecoveryChoice {
    /// Drop the last prompt and its tool chain from the context.
    Deep,
    /// Drop only the last node from the context.
    Clear,
    /// Keep the history; clear the state.
    Ignore,
    /// Send the same context again.
    Retry,
    /// Compact the older turns, then send again.
    Compact,
}

/// Where a recovery move went.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Recovered {
    /// The session.
    pub session: Uuid,
    /// What was done.
    pub choice: RecoveryChoice,
    /// The head before.
    pub from: NodeId,
    /// The head after.
    pub to: NodeId,
    /// The new head's role and first line.
    pub head_summary: String,
}
